import { describe, expect, it } from 'vitest';
import type { AiSdkModelMessage } from '../formats/ai-sdk-wire.js';
import type { AnthropicMessage, AnthropicTextBlock } from '../formats/anthropic-wire.js';
import { MAX_CACHE_BREAKPOINTS, withAiSdkBreakpoints, withAnthropicBreakpoints } from './cache-breakpoints.js';

const mark = { type: 'ephemeral' } as const;

/** Where the breakpoints of an Anthropic prompt are, as `system[i]` and `messages[i].content[j]`. */
function anthropicMarks(prompt: { system?: unknown; messages: readonly AnthropicMessage[] }): string[] {
  const found: string[] = [];
  const system = Array.isArray(prompt.system) ? (prompt.system as AnthropicTextBlock[]) : [];
  system.forEach((block, i) => block.cache_control !== undefined && found.push(`system[${i}]`));
  prompt.messages.forEach((message, i) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, j) => {
      if ('cache_control' in block && block.cache_control !== undefined) found.push(`messages[${i}].content[${j}]`);
    });
  });
  return found;
}

const text = (value: string): { type: 'text'; text: string } => ({ type: 'text', text: value });

describe('withAnthropicBreakpoints', () => {
  const system: AnthropicTextBlock[] = [text('Policy'), text('Rules')];
  // Turn 1 (question, answer), turn 2 (question, a tool call, its result).
  const history: AnthropicMessage[] = [
    { role: 'user', content: [text('q1')] },
    { role: 'assistant', content: [text('a1')] },
    { role: 'user', content: [text('q2')] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'look', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found' }] },
  ];

  it('marks the system end, the last message and the end of the turn before the newest user turn', () => {
    const prompt = withAnthropicBreakpoints({ system, messages: history });
    expect(anthropicMarks(prompt)).toEqual(['system[1]', 'messages[1].content[0]', 'messages[4].content[0]']);
    expect(prompt.messages[4]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'found', cache_control: mark },
    ]);
    // The input is not changed.
    expect(anthropicMarks({ system, messages: history })).toEqual([]);
  });

  it('marks a first turn (one user message) and the system, nothing more', () => {
    const prompt = withAnthropicBreakpoints({ system, messages: [{ role: 'user', content: 'Hello' }] });
    expect(prompt.messages).toEqual([{ role: 'user', content: [{ ...text('Hello'), cache_control: mark }] }]);
    expect(anthropicMarks(prompt)).toEqual(['system[1]', 'messages[0].content[0]']);
  });

  it('passes over thinking blocks and empty text to the last block that can carry a breakpoint', () => {
    const messages: AnthropicMessage[] = [
      { role: 'user', content: [text('q1')] },
      {
        role: 'assistant',
        content: [
          text('a1'),
          { type: 'thinking', thinking: 'hm', signature: 's' },
          { type: 'redacted_thinking', data: 'x' },
        ],
      },
      { role: 'user', content: [text('q2'), text('  ')] },
    ];
    expect(anthropicMarks(withAnthropicBreakpoints({ messages }))).toEqual([
      'messages[1].content[0]',
      'messages[2].content[0]',
    ]);
  });

  it('keeps the caller’s breakpoints, counts them against the limit of 4, and adds none past it', () => {
    const marked: AnthropicMessage[] = history.map((message, i) =>
      i < 3
        ? { role: message.role, content: [{ ...text(`m${i}`), cache_control: { type: 'ephemeral', ttl: '1h' } }] }
        : message,
    );
    const prompt = withAnthropicBreakpoints({ system, messages: marked });
    // Three of the caller's, then the most valuable place: the last message.
    expect(anthropicMarks(prompt)).toEqual([
      'messages[0].content[0]',
      'messages[1].content[0]',
      'messages[2].content[0]',
      'messages[4].content[0]',
    ]);
    expect(anthropicMarks(prompt)).toHaveLength(MAX_CACHE_BREAKPOINTS);
    // A top-level cache_control elsewhere in the body takes the last one.
    expect(anthropicMarks(withAnthropicBreakpoints({ system, messages: marked }, 1))).toHaveLength(3);
  });

  it('counts breakpoints inside tool results, and a caller’s mark at a place satisfies it', () => {
    const messages: AnthropicMessage[] = [
      { role: 'user', content: [text('q')] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [
              { ...text('r1'), cache_control: mark },
              { ...text('r2'), cache_control: mark },
            ],
          },
        ],
      },
      { role: 'assistant', content: [{ ...text('done'), cache_control: mark }] },
    ];
    const prompt = withAnthropicBreakpoints({ system: [text('S')], messages });
    // 3 of the caller's; the last message already has one; the system takes the fourth.
    expect(prompt.system).toEqual([{ ...text('S'), cache_control: mark }]);
    expect(prompt.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
  });
});

describe('withAiSdkBreakpoints', () => {
  const anthropicMark = { anthropic: { cacheControl: mark } };
  const messages: AiSdkModelMessage[] = [
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: [text('a1'), { type: 'reasoning', text: 'hm' }] },
    { role: 'user', content: [text('q2')] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName: 'n', input: {} }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't', toolName: 'n', output: { type: 'text', value: 'r' } }],
    },
  ];

  it('marks parts with providerOptions.anthropic.cacheControl and makes the system prompt a marked message', () => {
    const prompt = withAiSdkBreakpoints({ system: 'Policy', messages });
    expect(prompt.system).toEqual({ role: 'system', content: 'Policy', providerOptions: anthropicMark });
    expect(prompt.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { ...text('a1'), providerOptions: anthropicMark },
        { type: 'reasoning', text: 'hm' },
      ],
    });
    expect(prompt.messages[4]?.content).toEqual([
      expect.objectContaining({ type: 'tool-result', providerOptions: anthropicMark }),
    ]);
    expect(prompt.messages[0]).toBe(messages[0]);
  });

  it('keeps the caller’s marks, within the limit of 4, and leaves an unmarked system prompt a string', () => {
    const marked: AiSdkModelMessage[] = messages.map((message, i) =>
      i < 3
        ? { ...message, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } }
        : message,
    ) as AiSdkModelMessage[];
    const prompt = withAiSdkBreakpoints({ system: 'Policy', messages: marked });
    expect(prompt.system).toBe('Policy');
    expect(prompt.messages.slice(0, 3)).toEqual(marked.slice(0, 3));
    expect(prompt.messages[4]?.content).toEqual([expect.objectContaining({ providerOptions: anthropicMark })]);
  });
});
