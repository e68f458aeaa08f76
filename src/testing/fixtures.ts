/**
 * Values the specs share: messages of every kind, a fake clock, a predictable token counter and
 * an assertion for typed errors.
 * @module
 */
import { expect } from 'vitest';
import { ChatstateError, type ErrorCode } from '../errors.js';
import { newId } from '../ids.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { TokenCounter } from '../tokens/counter.js';

/** A clock the test moves by hand (`SessionStoreOptions.now`), for retention and list order. */
export class FakeClock {
  private current: number;

  constructor(start = Date.now()) {
    this.current = start;
  }

  /** The current time, in epoch milliseconds; pass `clock.now` as `now`. */
  readonly now = (): number => this.current;

  /** Moves the clock forward. */
  advance(ms: number): void {
    this.current += ms;
  }
}

/** Counts one token per character of text plus one per message: totals the tests can predict. */
export const lengthCounter: TokenCounter = Object.freeze({
  name: 'conformance-length',
  countText: (text: string) => text.length,
  countMessage: (message: Message) => Message.text(message).length + 1,
});

/** A session id no other test uses (stores shared by several runs still see fresh ids). */
export function freshId(): string {
  return newId('conf');
}

/** One message of every role, category and content part, with tool calls, names and metadata. */
export function everyKindOfMessage(): Message[] {
  return [
    Message.system('You are terse.', { id: 'm-system', metadata: { source: 'prompt', version: 3 } }),
    Message.context('The user prefers metric units.', { id: 'm-context', metadata: { source: 'profile' } }),
    Message.user('What is the weather in Paris, and what time is it?', {
      id: 'm-user',
      name: 'alice',
      metadata: { lang: 'en' },
    }),
    Message.user(
      [
        { type: 'text', text: 'Compare these.' },
        { type: 'image', url: 'https://example.com/a.png', detail: 'low' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        {
          type: 'file',
          data: Buffer.from('hello, file').toString('base64'),
          mediaType: 'text/plain',
          filename: 'notes.txt',
        },
        { type: 'file', fileId: 'file-abc123', mediaType: 'application/pdf' },
        { type: 'file', url: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
      ],
      { id: 'm-user-parts' },
    ),
    Message.assistant(
      [
        { type: 'reasoning', text: 'Two tools are needed.', signature: 'sig-opaque-1', provider: 'anthropic' },
        { type: 'text', text: 'Let me check.', providerOptions: { openai: { annotations: [] } } },
      ],
      {
        id: 'm-assistant-calls',
        toolCalls: [
          { id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } },
          { id: 'call_time', name: 'get_time', arguments: '{"tz": "Europe/Paris"' },
        ],
      },
    ),
    Message.tool('call_weather', '{"tempC": 18, "sky": "clear"}', { id: 'm-tool-weather', name: 'get_weather' }),
    Message.tool('call_time', [{ type: 'text', text: '14:00' }], { id: 'm-tool-time', name: 'get_time' }),
    Message.assistant(
      [
        {
          type: 'raw',
          provider: 'openaiResponses',
          value: { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        },
        { type: 'text', text: '18 °C and clear — 晴れ 🌤, at 14:00.' },
      ],
      { id: 'm-assistant-final', tokens: { 'some-other-counter': 17 }, timestamp: '2024-05-06T07:08:09.123Z' },
    ),
  ];
}

/** A session with every message kind, owners, variables, metadata and measured usage. */
export function richSession(id = freshId()): Session {
  return Session.create({
    id,
    agentId: 'agent-weather',
    userId: 'user-alice',
    messages: everyKindOfMessage(),
    variables: { turn: 3, nested: { list: [1, 'two', null, true, { deep: -0.5 }] }, empty: {} },
    metadata: { title: 'Weather', tags: ['travel', 'paris'], flags: { pinned: true } },
  }).withUsage({ inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1024 });
}

/** `count` user/assistant messages with ids `<prefix>-1…`, alternating roles. */
export function conversation(count: number, prefix = 'msg'): Message[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? Message.user(`question ${index + 1}`, { id: `${prefix}-${index + 1}` })
      : Message.assistant(`answer ${index + 1}`, { id: `${prefix}-${index + 1}` }),
  );
}

/** `messages` with the sequence numbers a store gives them (`first`, `first + 1`, …). */
export function withSeqs(messages: readonly Message[], first = 1): Message[] {
  return messages.map((message, index) => Message.with(message, { seq: first + index }));
}

/** Awaits `run` and asserts it fails with a chatstate error of `code`; returns that error. */
export async function expectCode(run: () => unknown, code: ErrorCode): Promise<ChatstateError> {
  let failure: unknown;
  let resolved = false;
  try {
    await run();
    resolved = true;
  } catch (error) {
    failure = error;
  }
  expect(resolved, `expected a ${code} error, but the call succeeded`).toBe(false);
  expect(ChatstateError.isInstance(failure) ? failure.code : `not a ChatstateError: ${String(failure)}`).toBe(code);
  return failure as ChatstateError;
}

/** Asserts the session holds exactly `ids`, once each, numbered `1..n` without gaps. */
export async function expectExactlyOnce(store: SessionStore, id: string, ids: readonly string[]): Promise<void> {
  const messages = (await store.load(id)).messages;
  expect(messages.map((message) => message.seq)).toEqual(Array.from({ length: ids.length }, (_, index) => index + 1));
  expect(messages.map((message) => message.id).sort()).toEqual([...ids].sort());
}
