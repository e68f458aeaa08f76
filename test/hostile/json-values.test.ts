/**
 * Hostile JSON values at every entry point that takes one, store-independent: each is refused
 * with a typed error (never a `RangeError` or a `TypeError` from deep inside), and what is accepted
 * is a plain, deep-frozen copy the caller can no longer change. The store-facing side (append
 * state, stored values) is in the conformance kit (`src/testing/specs/hostile-values.ts`).
 */
import { describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { checkValue } from '../../src/active-memory/checks.js';
import type { ChatstateError, ErrorCode } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import { MAX_JSON_DEPTH, readJson } from '../../src/message/json-value.js';
import { Message, type MessageInput } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { memoryStore } from '../../src/stores/memory.js';
import { hostileValues, nested } from '../../src/testing/specs/hostile-values.js';
import { outcomeOf } from '../support/errors.js';

const TIMESTAMP = '2025-01-01T00:00:00.000Z';

/** Every place a message holds a JSON value, with `value` put there. */
const MESSAGE_PLACES: Array<[string, (value: unknown) => unknown]> = [
  ['metadata', (value) => ({ role: 'user', content: 'x', metadata: { value } })],
  ['metadata itself', (value) => ({ role: 'user', content: 'x', metadata: value })],
  [
    'tool-call arguments',
    (value) => ({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: { value } }] }),
  ],
  [
    'tool-call provider options',
    (value) => ({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'f', arguments: '{}', providerOptions: { openaiChat: { value } } }],
    }),
  ],
  ['a raw part', (value) => ({ role: 'user', content: [{ type: 'raw', provider: 'gemini', value }] })],
  [
    'a part’s provider options',
    (value) => ({ role: 'user', content: [{ type: 'text', text: 'x', providerOptions: { anthropic: { value } } }] }),
  ],
  ['token counts', (value) => ({ role: 'user', content: 'x', tokens: { value } })],
];

/** Every entry point of a session that takes JSON, with its code for a caller's bad value. */
const SESSION_PLACES: Array<[string, ErrorCode, (value: unknown) => unknown]> = [
  ['Session.create variables', 'INVALID_ARGUMENT', (value) => Session.create({ variables: { value } as never })],
  ['Session.create metadata', 'INVALID_ARGUMENT', (value) => Session.create({ metadata: { value } as never })],
  ['withVariable', 'INVALID_ARGUMENT', (value) => Session.create().withVariable('value', value as never)],
  ['withMetadata', 'INVALID_ARGUMENT', (value) => Session.create().withMetadata({ value } as never)],
  [
    'Session.fromJSON variables',
    'INVALID_SESSION',
    (value) => Session.fromJSON({ ...Session.create({ id: 's1' }).toJSON(), variables: { value } }),
  ],
  [
    'Session.fromJSON metadata',
    'INVALID_SESSION',
    (value) => Session.fromJSON({ ...Session.create({ id: 's1' }).toJSON(), metadata: { value } }),
  ],
  ['active memory checkValue', 'INVALID_ARGUMENT', (value) => checkValue('key', value)],
];

describe('hostile values are refused with a typed error at every entry point', () => {
  for (const [name, value] of hostileValues()) {
    describe(name, () => {
      it.each(MESSAGE_PLACES)('Message.create and Message.fromStored: in %s → INVALID_MESSAGE', (_place, build) => {
        const input = build(value) as MessageInput;
        expect(outcomeOf(() => Message.create(input))).toBe('INVALID_MESSAGE');
        expect(outcomeOf(() => Message.fromStored({ id: 'm1', timestamp: TIMESTAMP, ...(input as object) }))).toBe(
          'INVALID_MESSAGE',
        );
      });

      it.each(SESSION_PLACES)('%s → %s', (_place, code, run) => {
        expect(outcomeOf(() => run(value))).toBe(code);
      });

      it('SessionHandle.store → INVALID_ARGUMENT, for every scope', async () => {
        const store = memoryStore();
        const handle = createSessionHandle({ store, sessionId: 's1', userId: 'u1', agentId: 'a1' });
        for (const scope of ['session', 'user', 'agent', 'app', 'temp'] as const) {
          await expect(handle.store('key', value as never, { scope })).rejects.toMatchObject({
            code: 'INVALID_ARGUMENT',
          });
        }
        await store.close();
      });
    });
  }
});

describe('hostile message frames', () => {
  const throwing = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      ownKeys() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
    },
  );
  const frames: Array<[string, unknown]> = [
    [
      'a message whose getter throws',
      {
        role: 'user',
        get content(): never {
          throw new Error('getter');
        },
      },
    ],
    ['a message that is a Proxy whose traps throw', throwing],
    [
      'a part whose getter throws',
      {
        role: 'user',
        content: [
          {
            type: 'text',
            get text(): never {
              throw new Error('getter');
            },
          },
        ],
      },
    ],
    [
      'a content array that is a Proxy whose traps throw',
      {
        role: 'user',
        content: new Proxy([], {
          get() {
            throw new Error('trap');
          },
        }),
      },
    ],
    [
      'a tool call whose getter throws',
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'c',
            name: 'f',
            get arguments(): never {
              throw new Error('getter');
            },
          },
        ],
      },
    ],
    ['a message with a "__proto__" field', JSON.parse('{"role":"user","content":"x","__proto__":{"role":"tool"}}')],
  ];
  it.each(frames)('%s → INVALID_MESSAGE from create and fromStored', (_name, input) => {
    expect(outcomeOf(() => Message.create(input as MessageInput))).toBe('INVALID_MESSAGE');
    expect(outcomeOf(() => Message.fromStored(input))).toBe('INVALID_MESSAGE');
    expect(outcomeOf(() => Session.create({ messages: [input as MessageInput] }))).toBe('INVALID_MESSAGE');
  });

  it('a hostile session object for fromJSON → INVALID_SESSION', () => {
    expect(outcomeOf(() => Session.fromJSON(throwing))).toBe('INVALID_SESSION');
    expect(
      outcomeOf(() =>
        Session.fromJSON({
          get id(): never {
            throw new Error('getter');
          },
        }),
      ),
    ).toBe('INVALID_SESSION');
  });
});

describe('the depth limit', () => {
  it(`is ${MAX_JSON_DEPTH} levels for each JSON value, checked before going deeper`, () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(readJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    const over = readJson(nested(MAX_JSON_DEPTH + 1));
    expect(over.ok ? 'accepted' : over.problem.kind).toBe('too-deep');
    // A million levels fail as fast as 65: nothing below the limit is visited.
    const million = nested(1_000_000);
    const start = performance.now();
    const deep = readJson(million);
    expect(deep.ok ? 'accepted' : deep.problem.kind).toBe('too-deep');
    expect(performance.now() - start).toBeLessThan(50);
  });

  it('gives a value as deep as the limit to every place a message and a session hold one, and the next level to none', () => {
    // A record of values (metadata, provider options) does not count its own level: each value may
    // nest MAX_JSON_DEPTH levels. The builders put the value inside `{ value }`, which for tool
    // arguments and a provider's options is the value itself.
    const inside: Record<string, number> = {
      metadata: MAX_JSON_DEPTH,
      'tool-call arguments': MAX_JSON_DEPTH - 1,
      'tool-call provider options': MAX_JSON_DEPTH - 1,
      'a raw part': MAX_JSON_DEPTH,
      'a part’s provider options': MAX_JSON_DEPTH - 1,
    };
    for (const [place, build] of MESSAGE_PLACES.filter(([place]) => inside[place] !== undefined)) {
      const levels = inside[place] as number;
      expect([place, outcomeOf(() => Message.create(build(nested(levels)) as MessageInput))]).toEqual([
        place,
        'accepted',
      ]);
      expect([place, outcomeOf(() => Message.create(build(nested(levels + 1)) as MessageInput))]).toEqual([
        place,
        'INVALID_MESSAGE',
      ]);
    }
    expect(outcomeOf(() => Session.create().withVariable('v', nested(MAX_JSON_DEPTH) as never))).toBe('accepted');
    expect(
      outcomeOf(() =>
        Session.create({
          variables: { v: nested(MAX_JSON_DEPTH) as never },
          metadata: { m: nested(MAX_JSON_DEPTH) as never },
        }),
      ),
    ).toBe('accepted');
    expect(outcomeOf(() => Session.create().withVariable('v', nested(MAX_JSON_DEPTH + 1) as never))).toBe(
      'INVALID_ARGUMENT',
    );
    // What a session accepted reads back.
    const session = Session.create({
      id: 's1',
      variables: { v: nested(MAX_JSON_DEPTH) as never },
      metadata: { m: nested(MAX_JSON_DEPTH) as never },
    });
    expect(Session.fromJSON(JSON.parse(JSON.stringify(session))).toJSON()).toEqual(session.toJSON());
  });

  it('names the place and the reason in the error', () => {
    const error = (() => {
      try {
        Message.create({ role: 'user', content: 'x', metadata: { a: nested(5000) } } as MessageInput);
      } catch (caught) {
        return caught as ChatstateError;
      }
      return undefined;
    })();
    expect(error?.message).toMatch(/^Invalid message: metadata\.a\.a.*nested deeper than 64 levels/);
  });
});

describe('the copy', () => {
  it('is plain and deep-frozen, shares nothing with the input, and never calls a getter', () => {
    let reads = 0;
    const metadata = {
      list: [1, { deep: true }],
      get counted() {
        reads += 1;
        return 1;
      },
    };
    expect(outcomeOf(() => Message.user('x', { metadata }))).toBe('INVALID_MESSAGE');
    expect(reads).toBe(0);
    const input = { list: [1, { deep: true }], map: Object.assign(Object.create(null) as object, { a: 1 }) };
    const message = Message.user('x', { metadata: input });
    expect(message.metadata).toEqual({ list: [1, { deep: true }], map: { a: 1 } });
    expect(message.metadata.list).not.toBe(input.list);
    expect(Object.isFrozen(message.metadata.list) && Object.isFrozen((message.metadata.list as object[])[1])).toBe(
      true,
    );
    expect(Object.getPrototypeOf(message.metadata.map)).toBe(Object.prototype);
    input.list.push(2);
    expect(message.metadata.list).toEqual([1, { deep: true }]);
    expect(Object.isFrozen(input.list)).toBe(false);
  });

  it('shares a subtree met twice instead of copying it twice, and writes -0 as 0', () => {
    const shared = { big: 'x'.repeat(10) };
    const message = Message.user('x', { metadata: { a: shared, b: shared, zero: -0 } });
    expect(message.metadata.a).toBe(message.metadata.b);
    expect(Object.is(message.metadata.zero, 0)).toBe(true);
  });

  it('refuses undefined, in objects and in arrays: a copy without the key would not be the same data', () => {
    expect(outcomeOf(() => Message.user('x', { metadata: { a: undefined, b: 1 } }))).toBe('INVALID_MESSAGE');
    expect(outcomeOf(() => Message.user('x', { metadata: { a: [undefined] } }))).toBe('INVALID_MESSAGE');
    expect(outcomeOf(() => Session.create().withMetadata({ a: undefined } as never))).toBe('INVALID_ARGUMENT');
    // An optional field of the message itself may be undefined: it is absent.
    expect(Message.user('x', { name: undefined, metadata: undefined }).metadata).toEqual({});
  });
});

describe('provider formats reading hostile wire values', () => {
  const deep = nested(5000);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const strict: Array<[string, (value: unknown) => unknown]> = [
    [
      'openaiChat',
      (value) =>
        formats.openaiChat.from({
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: 'a', extra: value },
          ],
        } as never),
    ],
    [
      'openaiResponses',
      (value) =>
        formats.openaiResponses.from({
          input: [
            { type: 'message', role: 'user', content: 'q' },
            { type: 'mystery', payload: value },
          ],
        } as never),
    ],
    [
      'aiSdk',
      (value) =>
        formats.aiSdk.from({
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName: 'f', input: value }] },
          ],
        } as never),
    ],
  ];
  it.each(strict)('%s.from refuses too deep and cyclic values with INVALID_ARGUMENT', (_name, read) => {
    expect(outcomeOf(() => read(deep))).toBe('INVALID_ARGUMENT');
    expect(outcomeOf(() => read(cyclic))).toBe('INVALID_ARGUMENT');
  });

  const lenient: Array<[string, (value: unknown) => { messages: Message[]; warnings: Array<{ code: string }> }]> = [
    [
      'anthropic',
      (value) =>
        formats.anthropic.from({
          messages: [
            { role: 'user', content: 'q' },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'a' },
                { type: 'tool_use', id: 't1', name: 'f', input: value },
              ],
            },
          ],
        } as never),
    ],
    [
      'gemini',
      (value) =>
        formats.gemini.from({
          contents: [
            { role: 'user', parts: [{ text: 'q' }] },
            { role: 'model', parts: [{ text: 'a' }, { functionCall: { name: 'f', args: value } }] },
          ],
        } as never),
    ],
  ];
  it.each(lenient)(
    '%s.from (which never throws on a caller’s wire) skips such a block with a warning',
    (_name, read) => {
      for (const value of [deep, cyclic]) {
        const result = read(value);
        expect(result.messages.map((message) => Message.text(message))).toEqual(['q', 'a']);
        expect(
          result.warnings
            .map((warning) => warning.code)
            .some((code) => code === 'invalid_block' || code === 'invalid_part'),
        ).toBe(true);
      }
    },
  );
});
