import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { anthropic } from './anthropic.js';
import type { AnthropicMessage, AnthropicWire } from './anthropic-wire.js';
import { MISSING_RESULT_TEXT } from './prepare.js';
import { FIRST_TURN_PLACEHOLDER } from './turn-rules.js';
import type { FormatWarning, WireProblem } from './types.js';

const codes = (items: ReadonlyArray<FormatWarning | WireProblem>): string[] => items.map((item) => item.code);
const PNG = 'iVBORw0KGgoAAAANSUhEUg==';

function call(id: string, name = 'search', args: string | Record<string, string> = { q: 'x' }) {
  return { id, name, arguments: args };
}

describe('anthropic.to', () => {
  it('puts leading system and context messages in `system`, one text block each, keeping cache breakpoints', () => {
    const wire = anthropic.to([
      Message.system('Be brief.'),
      Message.context([
        {
          type: 'text',
          text: 'Facts.',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } },
        },
      ]),
      Message.user('Hi'),
    ]);
    expect(wire.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Facts.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(wire.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(wire.warnings).toEqual([]);
  });

  it('omits `system` when there is none and drops media from the system prompt with a warning', () => {
    expect(anthropic.to([Message.user('Hi')])).not.toHaveProperty('system');
    const wire = anthropic.to([
      Message.context([{ type: 'image', data: PNG, mediaType: 'image/png' }]),
      Message.user('Hi'),
    ]);
    expect(wire).not.toHaveProperty('system');
    expect(codes(wire.warnings)).toEqual(['unsupported_part']);
  });

  it('turns mid-conversation system and context messages into tagged user text merged into the user turn', () => {
    const wire = anthropic.to([
      Message.user('Hi'),
      Message.system('Now be formal.'),
      Message.context('Doc v2'),
      Message.assistant('Hello.'),
    ]);
    expect(wire.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'text', text: '<system>\nNow be formal.\n</system>' },
        { type: 'text', text: '<context>\nDoc v2\n</context>' },
      ],
    });
    expect(wire.messages).toHaveLength(2);
  });

  it('keeps the media of a mid-conversation context message as user blocks', () => {
    const wire = anthropic.to([
      Message.user('Hi'),
      Message.context([
        { type: 'text', text: 'See' },
        { type: 'image', url: 'https://x.test/a.png' },
      ]),
    ]);
    expect(wire.messages[0]?.content).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'text', text: '<context>\nSee\n</context>' },
      { type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } },
    ]);
  });

  it('folds all results of a turn into one user message, in call order, before the next user text', () => {
    const wire = anthropic.to([
      Message.user('Go'),
      Message.assistant('Looking.', { toolCalls: [call('c1'), call('c2', 'read')] }),
      Message.tool('c2', 'two', { metadata: { isError: true } }),
      Message.tool('c1', 'one'),
      Message.user('Thanks'),
    ]);
    expect(wire.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'search', input: { q: 'x' } },
          { type: 'tool_use', id: 'c2', name: 'read', input: { q: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'two', is_error: true },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
    expect(wire.warnings).toEqual([]);
  });

  it('sends a synthesized result for a call without one as an error, and drops orphan results', () => {
    const wire = anthropic.to([
      Message.user('Go'),
      Message.tool('ghost', 'boo'),
      Message.assistant('', { toolCalls: [call('c1')] }),
    ]);
    expect(codes(wire.warnings)).toEqual(['orphan_tool_result', 'missing_tool_result']);
    expect(wire.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c1', content: MISSING_RESULT_TEXT, is_error: true }],
    });
  });

  it('parses tool arguments into an object; blank is {}, anything else is sent as { _raw } with a warning', () => {
    const wire = anthropic.to([
      Message.user('Go'),
      Message.assistant('', { toolCalls: [call('c1', 'a', ''), call('c2', 'b', '{oops'), call('c3', 'c', '[1,2]')] }),
      Message.tool('c1', 'r'),
      Message.tool('c2', 'r'),
      Message.tool('c3', 'r'),
    ]);
    expect(wire.messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'a', input: {} },
      { type: 'tool_use', id: 'c2', name: 'b', input: { _raw: '{oops' } },
      { type: 'tool_use', id: 'c3', name: 'c', input: { _raw: '[1,2]' } },
    ]);
    expect(codes(wire.warnings)).toEqual(['invalid_tool_arguments', 'invalid_tool_arguments']);
  });

  it('merges consecutive turns of one role', () => {
    const wire = anthropic.to([Message.user('a'), Message.user('b'), Message.assistant('c'), Message.assistant('d')]);
    expect(wire.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(wire.messages[1]?.content).toEqual([
      { type: 'text', text: 'c' },
      { type: 'text', text: 'd' },
    ]);
  });

  it('inserts a placeholder user turn when the history starts with the assistant', () => {
    const wire = anthropic.to([Message.system('S'), Message.assistant('Welcome back.')]);
    expect(wire.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: FIRST_TURN_PLACEHOLDER }] });
    expect(codes(wire.warnings)).toEqual(['inserted_user_turn']);
  });

  it('skips blank text and drops a message left with nothing to send', () => {
    const wire = anthropic.to([
      Message.user([
        { type: 'text', text: 'Hi' },
        { type: 'text', text: '  ' },
      ]),
      Message.user([
        { type: 'text', text: ' ' },
        { type: 'image', data: 'AAAA', mediaType: 'image/svg+xml' },
      ]),
    ]);
    expect(wire.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(codes(wire.warnings)).toEqual(['unsupported_part', 'empty_message']);
  });

  it('maps images: base64 (media type given or sniffed), data URLs, https URLs', () => {
    const wire = anthropic.to([
      Message.user([
        { type: 'image', data: PNG, mediaType: 'image/png', detail: 'high' },
        { type: 'image', data: '/9j/4AAQ' },
        { type: 'image', url: `data:image/gif;base64,R0lGODlh` },
        {
          type: 'image',
          url: 'https://x.test/cat.webp',
          providerOptions: { anthropic: { cache_control: { type: 'ephemeral' } } },
        },
      ]),
    ]);
    expect(wire.messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGODlh' } },
      { type: 'image', source: { type: 'url', url: 'https://x.test/cat.webp' }, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('maps files to documents: PDF by data or URL, text/* as plain text, file ids, images as images', () => {
    const wire = anthropic.to([
      Message.user([
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', url: 'https://x.test/b.pdf', mediaType: 'application/pdf' },
        { type: 'file', data: Buffer.from('# Title é').toString('base64'), mediaType: 'text/markdown' },
        { type: 'file', fileId: 'file_123', mediaType: 'application/pdf' },
        { type: 'file', data: PNG, mediaType: 'image/png' },
      ]),
    ]);
    expect(wire.messages[0]?.content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'url', url: 'https://x.test/b.pdf' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# Title é' } },
      { type: 'document', source: { type: 'file', file_id: 'file_123' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
    expect(wire.warnings).toEqual([]);
  });

  it('drops files Anthropic cannot read and media in assistant turns, with warnings', () => {
    const wire = anthropic.to([
      Message.user([
        { type: 'text', text: 'Hi' },
        { type: 'file', data: 'UEsDBA==', mediaType: 'application/zip' },
      ]),
      Message.assistant([
        { type: 'text', text: 'Look' },
        { type: 'image', url: 'https://x.test/a.png' },
      ]),
    ]);
    expect(codes(wire.warnings)).toEqual(['unsupported_part', 'unsupported_part']);
    expect(wire.messages[1]?.content).toEqual([{ type: 'text', text: 'Look' }]);
  });

  it('sends signed Anthropic reasoning as thinking before tool_use and drops other reasoning', () => {
    const wire = anthropic.to([
      Message.user('Go'),
      Message.assistant(
        [
          { type: 'reasoning', text: 'Plan', signature: 'sig', provider: 'anthropic' },
          { type: 'reasoning', text: 'Unsigned', provider: 'anthropic' },
          { type: 'reasoning', text: 'Other', provider: 'openaiResponses' },
        ],
        { toolCalls: [call('c1')] },
      ),
      Message.tool('c1', 'r'),
    ]);
    expect(wire.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Plan', signature: 'sig' },
      { type: 'tool_use', id: 'c1', name: 'search', input: { q: 'x' } },
    ]);
    expect(codes(wire.warnings)).toEqual(['dropped_reasoning', 'dropped_reasoning']);
  });

  it('writes raw Anthropic parts verbatim and drops other providers’ raw parts', () => {
    const redacted = { type: 'redacted_thinking', data: 'xyz' };
    const wire = anthropic.to([
      Message.user('Go'),
      Message.assistant([
        { type: 'raw', provider: 'anthropic', value: redacted },
        { type: 'raw', provider: 'gemini', value: { executableCode: {} } },
        { type: 'raw', provider: 'anthropic', value: 'not a block' },
        { type: 'text', text: 'Done' },
      ]),
    ]);
    expect(wire.messages[1]?.content).toEqual([redacted, { type: 'text', text: 'Done' }]);
    expect(codes(wire.warnings)).toEqual(['foreign_raw_part', 'unsupported_part']);
  });

  it('drops raw blocks that would break the turn rules: calls, results, and blocks of the other role', () => {
    const wire = anthropic.to([
      Message.user([
        { type: 'text', text: 'Go' },
        { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'x' } },
        { type: 'raw', provider: 'anthropic', value: { type: 'tool_result', tool_use_id: 'x' } },
      ]),
      Message.assistant([
        { type: 'text', text: 'Ok' },
        { type: 'raw', provider: 'anthropic', value: { type: 'tool_use', id: 'x', name: 'f', input: {} } },
        { type: 'raw', provider: 'anthropic', value: { type: 'document', source: { type: 'file', file_id: 'f' } } },
      ]),
    ]);
    expect(wire.messages.map((message) => message.content)).toEqual([
      [{ type: 'text', text: 'Go' }],
      [{ type: 'text', text: 'Ok' }],
    ]);
    expect(codes(wire.warnings)).toEqual([
      'unsupported_part',
      'unsupported_part',
      'unsupported_part',
      'unsupported_part',
    ]);
  });

  it('keeps cache breakpoints on text, tool calls and tool-result media', () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const wire = anthropic.to([
      Message.user([{ type: 'text', text: 'Hi', providerOptions: cache }]),
      Message.assistant('', { toolCalls: [{ ...call('c1'), providerOptions: cache }] }),
      Message.tool('c1', [
        { type: 'text', text: 'shot' },
        { type: 'image', data: PNG, mediaType: 'image/png' },
      ]),
    ]);
    expect(wire.messages[0]?.content).toEqual([{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }]);
    expect(wire.messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'search', input: { q: 'x' }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(wire.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'shot' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
  });

  it('sends a blank tool result without content', () => {
    const wire = anthropic.to([
      Message.user('Go'),
      Message.assistant('', { toolCalls: [call('c1')] }),
      Message.tool('c1', ''),
    ]);
    expect(wire.messages[2]?.content).toEqual([{ type: 'tool_result', tool_use_id: 'c1' }]);
    expect(anthropic.validate(wire)).toEqual([]);
  });

  it('sends an empty history as one placeholder user turn, and says so (the API rejects empty messages)', () => {
    const wire = anthropic.to([]);
    expect(wire).toEqual({
      messages: [{ role: 'user', content: [{ type: 'text', text: FIRST_TURN_PLACEHOLDER }] }],
      warnings: [expect.objectContaining({ code: 'empty_conversation' })],
    });
    expect(anthropic.validate(wire)).toEqual([]);
  });
});

describe('anthropic.from', () => {
  it('reads the system prompt as a string or as one message per block', () => {
    expect(anthropic.from({ system: 'S', messages: [] }).messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'S'],
    ]);
    const read = anthropic.from({
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: ' ' },
      ],
      messages: [],
    });
    expect(read.messages.map((m) => m.content)).toEqual([
      'A',
      [{ type: 'text', text: 'B', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }],
    ]);
    expect(read.warnings).toEqual([]);
  });

  it('reads tool_result blocks as tool messages named after their call, then the user text', () => {
    const read = anthropic.from({
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'search', input: { q: 1 } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'bad' }], is_error: true },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
    });
    expect(read.warnings).toEqual([]);
    expect(read.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(read.messages[1]).toMatchObject({
      content: '',
      toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":1}' }],
    });
    expect(read.messages[2]).toMatchObject({
      toolCallId: 'c1',
      name: 'search',
      content: [{ type: 'text', text: 'bad' }],
      metadata: { isError: true },
    });
    expect(read.messages[3]?.content).toBe('Thanks');
  });

  it('reads thinking as signed reasoning and keeps unmodelled blocks raw, writing them back unchanged', () => {
    const wire: AnthropicWire = {
      system: [{ type: 'text', text: 'S' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read this' },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
              title: 'a.pdf',
            },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain é' } },
            { type: 'image', source: { type: 'file', file_id: 'file_1' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Plan', signature: 'sig' },
            { type: 'redacted_thinking', data: 'xyz' },
            { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'q' } },
            { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [] },
            { type: 'text', text: 'Cited', citations: [{ type: 'char_location', cited_text: 'x' }] },
            { type: 'tool_use', id: 'c1', name: 'search', input: {} },
          ] as unknown as AnthropicMessage['content'],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
      ],
    };
    const read = anthropic.from(wire);
    expect(read.warnings).toEqual([]);
    const assistant = read.messages[2];
    expect(assistant?.content).toEqual([
      { type: 'reasoning', text: 'Plan', signature: 'sig', provider: 'anthropic' },
      { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'xyz' } },
      {
        type: 'raw',
        provider: 'anthropic',
        value: { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'q' } },
      },
      {
        type: 'raw',
        provider: 'anthropic',
        value: { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [] },
      },
      {
        type: 'raw',
        provider: 'anthropic',
        value: { type: 'text', text: 'Cited', citations: [{ type: 'char_location', cited_text: 'x' }] },
      },
    ]);
    expect(read.messages[1]?.content).toMatchObject([
      { type: 'text' },
      { type: 'file', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', mediaType: 'text/plain', data: Buffer.from('plain é').toString('base64') },
      { type: 'raw' },
    ]);
    const again = anthropic.to(read.messages);
    expect({ system: again.system, messages: again.messages }).toEqual(wire);
    expect(again.warnings).toEqual([]);
  });

  it('does not freeze the caller’s wire objects', () => {
    const block = { type: 'redacted_thinking' as const, data: 'x' };
    const wire: AnthropicWire = {
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [block] },
      ],
    };
    anthropic.from(wire);
    expect(Object.isFrozen(block)).toBe(false);
  });

  it('skips what it cannot read, with warnings', () => {
    const read = anthropic.from({
      messages: [
        null,
        { role: 'system', content: 'x' },
        { role: 'user', content: [42, { type: 'text', text: 'ok' }] },
        { role: 'assistant', content: [] },
        { role: 'user', content: '  ' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'has space', name: 'n', input: {} }] },
      ] as unknown as AnthropicMessage[],
    });
    expect(codes(read.warnings)).toEqual([
      'invalid_message',
      'invalid_message',
      'invalid_block',
      'empty_message',
      'empty_message',
      'invalid_message',
    ]);
    expect(read.messages.map((m) => m.content)).toEqual(['ok']);
  });
});

describe('anthropic.validate', () => {
  const user = (content: unknown): unknown => ({ role: 'user', content });
  const assistant = (content: unknown): unknown => ({ role: 'assistant', content });
  const use = (id: string): unknown => ({ type: 'tool_use', id, name: 'f', input: {} });
  const result = (id: string): unknown => ({ type: 'tool_result', tool_use_id: id, content: 'r' });
  const check = (messages: unknown[], system?: unknown): WireProblem[] => anthropic.validate({ system, messages });

  it('accepts a well-formed exchange', () => {
    expect(
      check(
        [user('Hi'), assistant([use('a'), use('b')]), user([result('b'), result('a'), { type: 'text', text: 'more' }])],
        'S',
      ),
    ).toEqual([]);
  });

  it('never throws on garbage', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    for (const garbage of [null, undefined, 1, 'x', [], () => 0, { messages: {} }, hostile]) {
      expect(() => anthropic.validate(garbage)).not.toThrow();
      expect(anthropic.validate(garbage).length).toBeGreaterThan(0);
    }
    expect(codes(anthropic.validate(42))).toEqual(['invalid_wire']);
    expect(anthropic.validate({ messages: 'x' })).toEqual([
      expect.objectContaining({ code: 'invalid_wire', path: 'messages' }),
    ]);
    expect(codes(check([user('Hi')], 42))).toEqual(['invalid_wire']);
  });

  it('reports invalid messages, roles and blocks with their paths', () => {
    expect(check([user('Hi'), null])).toEqual([
      expect.objectContaining({ code: 'invalid_message', path: 'messages[1]' }),
    ]);
    expect(check([user(42)])).toEqual([
      expect.objectContaining({ code: 'invalid_message', path: 'messages[0].content' }),
    ]);
    expect(check([user('Hi'), { role: 'system', content: 'x' }])).toEqual([
      expect.objectContaining({ code: 'invalid_role', path: 'messages[1].role' }),
    ]);
    expect(check([user([{ type: 'text', text: 'a' }, 7])])).toEqual([
      expect.objectContaining({ code: 'invalid_block', path: 'messages[0].content[1]' }),
    ]);
    expect(codes(check([user([{ type: 'text', text: 1 }])]))).toEqual(['invalid_block']);
    expect(codes(check([user([{ type: 'image' }])]))).toEqual(['invalid_block']);
    expect(codes(check([user('Hi'), assistant([{ type: 'tool_use', id: 'a', name: 'f' }])]))).toEqual([
      'invalid_block',
    ]);
    expect(codes(check([user([{ type: 'tool_result' }])]))).toEqual(['invalid_block']);
    expect(codes(check([user('Hi')], [{ type: 'image', source: {} }]))).toEqual(['invalid_block']);
  });

  it('reports the first-turn and alternation rules', () => {
    expect(check([assistant('Hi')])).toEqual([
      expect.objectContaining({ code: 'first_not_user', path: 'messages[0]' }),
    ]);
    expect(check([user('a'), user('b')])).toEqual([
      expect.objectContaining({ code: 'alternation', path: 'messages[1]' }),
    ]);
  });

  it('reports empty content and blank text blocks', () => {
    expect(check([user('  ')])).toEqual([
      expect.objectContaining({ code: 'empty_content', path: 'messages[0].content' }),
    ]);
    expect(codes(check([user([])]))).toEqual(['empty_content']);
    expect(check([user([{ type: 'text', text: '' }])])).toEqual([
      expect.objectContaining({ code: 'empty_text', path: 'messages[0].content[0]' }),
    ]);
    expect(check([user('Hi')], [{ type: 'text', text: ' ' }])).toEqual([
      expect.objectContaining({ code: 'empty_text', path: 'system[0]' }),
    ]);
    const nested = check([
      user('Hi'),
      assistant([use('a')]),
      user([{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: '' }] }]),
    ]);
    expect(nested).toEqual([
      expect.objectContaining({ code: 'empty_text', path: 'messages[2].content[0].content[0]' }),
    ]);
    expect(
      codes(
        check([user('Hi'), assistant([use('a')]), user([{ type: 'tool_result', tool_use_id: 'a', content: ' ' }])]),
      ),
    ).toEqual(['empty_text']);
  });

  it('reports blocks in the wrong role', () => {
    expect(codes(check([user([use('a')])]))).toEqual(['misplaced_block']);
    expect(
      codes(check([user('Hi'), assistant([{ type: 'thinking', thinking: 't', signature: 's' }, result('a')])])),
    ).toEqual(['misplaced_block', 'tool_result_order']);
  });

  it('reports tool results that are not first in the user message', () => {
    const problems = check([user('Hi'), assistant([use('a')]), user([{ type: 'text', text: 'x' }, result('a')])]);
    expect(problems).toEqual([expect.objectContaining({ code: 'tool_result_order', path: 'messages[2].content[1]' })]);
  });

  it('reports calls without a result in the very next user message', () => {
    expect(check([user('Hi'), assistant([use('a'), use('b')]), user([result('a')])])).toEqual([
      expect.objectContaining({ code: 'missing_tool_result', path: 'messages[1].content[1]' }),
    ]);
    expect(codes(check([user('Hi'), assistant([use('a')])]))).toEqual(['missing_tool_result']);
    expect(codes(check([user('Hi'), assistant([use('a')]), assistant('x')]))).toEqual([
      'alternation',
      'missing_tool_result',
    ]);
    // A result two turns later does not count.
    expect(codes(check([user('Hi'), assistant([use('a')]), user('x'), assistant('y'), user([result('a')])]))).toEqual([
      'missing_tool_result',
      'orphan_tool_result',
    ]);
  });

  it('reports results whose call is not in the assistant message right before', () => {
    expect(check([user([result('a')])])).toEqual([
      expect.objectContaining({ code: 'orphan_tool_result', path: 'messages[0].content[0]' }),
    ]);
    expect(codes(check([user('Hi'), assistant([use('a')]), user([result('a'), result('z')])]))).toEqual([
      'orphan_tool_result',
    ]);
  });

  it('reports duplicated calls and results', () => {
    expect(codes(check([user('Hi'), assistant([use('a'), use('a')]), user([result('a')])]))).toEqual([
      'duplicate_tool_call',
    ]);
    expect(codes(check([user('Hi'), assistant([use('a')]), user([result('a'), result('a')])]))).toEqual([
      'duplicate_tool_result',
    ]);
  });
});
