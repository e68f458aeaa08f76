/**
 * The provider simulator the context bench measures against (test/support/provider-simulator.ts),
 * checked through the official `openai` and `@anthropic-ai/sdk` clients: its own count, its real
 * overflow bodies, OpenAI's automatic prefix cache, Anthropic's breakpoints, the scripted agent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { openaiChatModel } from '../../src/models/openai-chat.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { memoryStore } from '../../src/stores/memory.js';
import { estimate } from '../../src/tokens/estimate.js';
import {
  documentText,
  documentTool,
  startProviderSimulator,
  type RunningProviderSimulator,
} from '../support/provider-simulator.js';

let simulator: RunningProviderSimulator;
let openai: OpenAI;
let anthropic: Anthropic;

beforeEach(async () => {
  simulator = await startProviderSimulator();
  openai = new OpenAI({ apiKey: 'test', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'test', baseURL: simulator.url, maxRetries: 0 });
});
afterEach(() => simulator.close());

const tokens = (text: string): number => encode(text).length;
/** A long stable text: a system prompt the caches can keep. */
const LONG = documentText(7, 2_000);

describe('its count', () => {
  it('is o200k_base over its own rendering, with 3 tokens per message and 3 priming the reply', () => {
    const body = {
      model: 'sim-8k',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is the state of the session store?' },
      ],
    };
    const expected =
      3 + tokens('system\nYou are terse.') + 3 + tokens('user\nWhat is the state of the session store?') + 3;
    expect(simulator.countChat(body)).toBe(expected);
    // Tool definitions and tool calls count too, which a count of the messages' text alone misses.
    const withTool = {
      ...body,
      tools: [{ type: 'function', function: { name: 'read', description: 'Reads.', parameters: { type: 'object' } } }],
      messages: [
        ...body.messages,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'file a' },
      ],
    };
    expect(simulator.countChat(withTool)).toBeGreaterThan(expected + 20);
  });

  it('differs from chatstate’s estimate of the same text', () => {
    const text = documentText(3, 1_000);
    const own = simulator.countChatMessage({ role: 'tool', tool_call_id: 'call_1', content: text });
    expect(own).not.toBe(estimate.countText(text));
    expect(Math.abs(own - tokens(text))).toBeLessThan(20);
  });
});

describe('its overflow', () => {
  it('answers a prompt over the limit with OpenAI’s 400 context_length_exceeded, through the openai client', async () => {
    const error = await openai.chat.completions
      .create({ model: 'sim-8k', messages: [{ role: 'user', content: documentText(1, 9_000) }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('context_length_exceeded');
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.param).toBe('messages');
    const record = simulator.records[0];
    expect(record?.overflow).toBe(true);
    expect(apiError.message).toContain(
      `This model's maximum context length is 8192 tokens. However, your messages resulted in ${record?.promptTokens} tokens. Please reduce the length of the messages.`,
    );
  });

  it('counts the requested output against the limit, and says so', async () => {
    const content = documentText(1, 7_000);
    const prompt = simulator.countChat({ messages: [{ role: 'user', content }] });
    const error = (await openai.chat.completions
      .create({ model: 'sim-8k', messages: [{ role: 'user', content }], max_completion_tokens: 2_000 })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toContain(
      `However, you requested ${prompt + 2_000} tokens (${prompt} in the messages, 2000 in the completion). Please reduce the length of the messages or completion.`,
    );
    // The same prompt without an output limit fits.
    await openai.chat.completions.create({ model: 'sim-8k', messages: [{ role: 'user', content }] });
  });

  it('answers Anthropic’s 400 invalid_request_error "prompt is too long", through @anthropic-ai/sdk', async () => {
    const error = await anthropic.messages
      .create({ model: 'sim-8k', max_tokens: 100, messages: [{ role: 'user', content: documentText(1, 9_000) }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(400);
    const prompt = simulator.records[0]?.promptTokens;
    expect(apiError.error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${prompt} tokens > 8192 maximum` },
    });
  });
});

describe('OpenAI’s automatic prefix cache', () => {
  const ask = (system: string, question: string, key?: string) =>
    openai.chat.completions.create({
      model: 'sim-32k',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: question },
      ],
      ...(key === undefined ? {} : { prompt_cache_key: key }),
    });

  it('hits on a repeated prefix in 128-token steps, and misses after a change at the start', async () => {
    const first = await ask(LONG, 'First question?');
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await ask(LONG, 'Second question?');
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const systemTokens = 3 + tokens(`system\n${LONG}`);
    expect(cached % 128).toBe(0);
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached).toBeLessThanOrEqual(systemTokens + 16);
    expect(cached).toBeGreaterThan(systemTokens - 128);
    const changed = await ask(`Today is Sunday. ${LONG}`, 'Second question?');
    expect(changed.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(simulator.records.map((record) => record.cachedTokens)).toEqual([0, cached, 0]);
  });

  it('keeps prompts of one prompt_cache_key apart from another key’s', async () => {
    await ask(LONG, 'First question?', 'session-a');
    const other = await ask(LONG, 'First question?', 'session-b');
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const same = await ask(LONG, 'Another question?', 'session-a');
    expect(same.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(1024);
  });

  it('caches nothing under 1,024 shared tokens', async () => {
    await ask('Short system prompt.', 'First question?');
    const second = await ask('Short system prompt.', 'First question?');
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });
});

describe('Anthropic’s breakpoints', () => {
  const ephemeral = { type: 'ephemeral' } as const;
  const ask = (question: string, breakpoints: { system?: boolean; question?: boolean }) =>
    anthropic.messages.create({
      model: 'sim-32k',
      max_tokens: 100,
      system: [{ type: 'text', text: LONG, ...(breakpoints.system === true ? { cache_control: ephemeral } : {}) }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: question, ...(breakpoints.question === true ? { cache_control: ephemeral } : {}) },
          ],
        },
      ],
    });

  it('caches only up to a breakpoint: written first, read after, the rest uncached', async () => {
    const systemTokens = 3 + tokens(`system\n${LONG}`);
    const none = await ask('First question?', {});
    expect(none.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const write = await ask('First question?', { system: true });
    expect(write.usage).toMatchObject({ cache_creation_input_tokens: systemTokens, cache_read_input_tokens: 0 });
    const read = await ask('Second question?', { system: true });
    expect(read.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: systemTokens });
    const questionTokens = 3 + tokens('user\nSecond question?');
    expect(read.usage.input_tokens).toBe(questionTokens);
    // A second breakpoint at the end: the system part is read, the question written.
    const both = await ask('Second question?', { system: true, question: true });
    expect(both.usage).toMatchObject({
      input_tokens: 0,
      cache_creation_input_tokens: questionTokens,
      cache_read_input_tokens: systemTokens,
    });
    // Without a breakpoint nothing is read, even over a prefix written before.
    const unmarked = await ask('Second question?', {});
    expect(unmarked.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(simulator.records.map((record) => record.cachedTokens)).toEqual([0, 0, systemTokens, systemTokens, 0]);
  });

  it('finds an earlier write at a block before its own breakpoint (lookback), never past a change', async () => {
    const systemTokens = 3 + tokens(`system\n${LONG}`);
    await ask('First question?', { system: true });
    // Only the question is marked: the system prefix written before is found within the lookback.
    const later = await ask('Third question?', { question: true });
    expect(later.usage.cache_read_input_tokens).toBe(systemTokens);
    expect(later.usage.cache_creation_input_tokens).toBe(3 + tokens('user\nThird question?'));
    const changed = await anthropic.messages.create({
      model: 'sim-32k',
      max_tokens: 100,
      system: [{ type: 'text', text: `Today is Sunday. ${LONG}`, cache_control: ephemeral }],
      messages: [{ role: 'user', content: 'Third question?' }],
    });
    expect(changed.usage.cache_read_input_tokens).toBe(0);
  });
});

describe('the scripted agent', () => {
  it('calls the tool for 2–3 rounds per user message, then answers, the same way every time', async () => {
    const store = memoryStore();
    const conversation = new Conversation({
      store,
      agents: {
        id: 'agent',
        model: openaiChatModel({ client: openai, model: 'sim-128k' }),
        system: 'You read documents.',
        tools: [documentTool()],
      },
    });
    try {
      const first = await conversation.send('s', 'Turn 1: what does the store keep?');
      expect(first.iterations).toBeGreaterThanOrEqual(3);
      expect(first.iterations).toBeLessThanOrEqual(4);
      const results = first.messages.filter((message) => message.role === 'tool').length;
      expect(results).toBe(first.iterations - 1);
      expect(Message.text(first.reply)).toMatch(new RegExp(`^I read ${results} tool results\\.`));
      const second = await conversation.send('other', 'Turn 1: what does the store keep?');
      expect(second.iterations).toBe(first.iterations);
      expect(simulator.records.filter((record) => record.toolCall)).toHaveLength(2 * results);
      expect(simulator.records.every((record) => !record.overflow)).toBe(true);
    } finally {
      await conversation.close();
      await store.close();
    }
  });

  it('answers in text at once when it is offered no tools', async () => {
    const answer = await openai.chat.completions.create({
      model: 'sim-8k',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answer.choices[0]?.message.content).toMatch(/^I read 0 tool results\./);
  });
});

describe('documentTool', () => {
  it('returns deterministic text of a size between its bounds, and a huge one when asked', async () => {
    const tool = documentTool({ huge: { tokens: 10_000, when: (query) => query.includes('whole log') } });
    const context = {} as Parameters<typeof tool.execute>[1];
    const text = (await tool.execute({ query: 'the schema', part: 1 }, context)) as string;
    expect(text).toBe(await tool.execute({ query: 'the schema', part: 1 }, context));
    expect(tokens(text)).toBeGreaterThanOrEqual(300);
    expect(tokens(text)).toBeLessThanOrEqual(1_400);
    const huge = (await tool.execute({ query: 'read the whole log', part: 1 }, context)) as string;
    expect(tokens(huge)).toBeGreaterThanOrEqual(10_000);
  });
});
