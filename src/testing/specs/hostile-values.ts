/**
 * Hostile values: what a caller hands over as data (message metadata, tool arguments, provider
 * options, raw parts, session variables and metadata, append state, stored values) either round
 * trips exactly — `"__proto__"` keys included, as own keys, with no prototype touched — or is
 * refused with a typed error before anything is written: nesting past `MAX_JSON_DEPTH`, cycles,
 * getters, Proxies, and what JSON cannot hold.
 * @module
 */
import { expect } from 'vitest';
import { Message, type MessageInput } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite, SpecScope } from '../suite.js';

/** `depth` levels of `{ a: … }` around `1`. */
export function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

/** A JSON object as `JSON.parse` makes it: a `"__proto__"` key is an own key. */
function parsed(text: string): Record<string, never> {
  return JSON.parse(text) as Record<string, never>;
}

/**
 * Values no store may take, each with its name: too deep, cyclic, unreadable or not JSON. Made
 * fresh on each call, so that no test sees another's.
 */
export function hostileValues(): Array<[string, unknown]> {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cyclicArray: unknown[] = [1];
  cyclicArray.push(cyclicArray);
  // eslint-disable-next-line no-sparse-arrays -- a hole is the point
  const sparse = [1, , 3];
  return [
    ['nested 2,000 levels deep', nested(2000)],
    ['nested 100,000 levels deep', nested(100_000)],
    ['an array nested 2,000 levels deep', JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`)],
    ['a cycle through an object', cyclic],
    ['a cycle through an array', cyclicArray],
    [
      'a getter that throws',
      {
        get boom(): never {
          throw new Error('getter');
        },
      },
    ],
    [
      'a getter that answers',
      {
        get answer() {
          return 42;
        },
      },
    ],
    [
      'a Proxy whose traps throw',
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap');
          },
          get() {
            throw new Error('trap');
          },
        },
      ),
    ],
    ['a quiet Proxy', new Proxy({ a: 1 }, {})],
    ['a symbol key', { [Symbol('key')]: 1 }],
    ['a symbol value', { a: Symbol('value') }],
    ['a function', { a: () => 1 }],
    ['a bigint', { a: 10n }],
    ['NaN', { a: Number.NaN }],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
    ['a Date', { a: new Date(0) }],
    ['a Map', { a: new Map([[1, 2]]) }],
    [
      'a class instance',
      {
        a: new (class Point {
          x = 1;
        })(),
      },
    ],
    ['an array with a hole', { a: sparse }],
    ['undefined in an array', { a: [1, undefined] }],
    ['undefined as a value', { a: undefined }],
  ];
}

/** The JSON text of `value`: `"__proto__"` keys included, in their order. */
function text(value: unknown): string {
  return JSON.stringify(value);
}

/** Asserts that `value` holds an own `"__proto__"` key equal to `expected`, and an ordinary prototype. */
function expectOwnProto(value: unknown, expected: unknown): void {
  expect(typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')).toBe(true);
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  expect(text(Object.getOwnPropertyDescriptor(value, '__proto__')?.value)).toBe(text(expected));
}

function expectNoPollution(): void {
  const probe: Record<string, unknown> = {};
  for (const key of ['polluted', 'x', 'y', 'z', 'm', 'v', 'cache', 'a']) expect(probe[key]).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
}

/** Messages whose user data holds `"__proto__"` keys everywhere a message holds JSON. */
function protoMessages(): Message[] {
  return [
    Message.user('prototype keys are data', {
      id: 'proto-user',
      metadata: parsed('{"__proto__":{"polluted":true},"plain":1,"nested":{"__proto__":[1,2]}}'),
    }),
    Message.assistant(
      [
        { type: 'text', text: 'calling', providerOptions: { anthropic: parsed('{"__proto__":{"cache":1}}') } },
        { type: 'raw', provider: 'gemini', value: parsed('{"__proto__":{"x":1},"kind":"mystery"}') },
      ],
      {
        id: 'proto-assistant',
        toolCalls: [
          {
            id: 'call_proto',
            name: 'lookup',
            arguments: parsed('{"__proto__":{"y":2},"city":"Paris"}'),
            providerOptions: { openaiChat: parsed('{"__proto__":{"z":3}}') },
          },
        ],
      },
    ),
    Message.tool('call_proto', 'done', { id: 'proto-tool', metadata: parsed('{"__proto__":"just a string"}') }),
  ];
}

function expectProtoMessages(messages: readonly Message[]): void {
  const [user, assistant, tool] = messages as [Message, Message, Message];
  expectOwnProto(user.metadata, { polluted: true });
  expectOwnProto(user.metadata.nested, [1, 2]);
  const parts = assistant.content as ReadonlyArray<{
    type: string;
    providerOptions?: Record<string, unknown>;
    value?: unknown;
  }>;
  expectOwnProto(parts[0]?.providerOptions?.anthropic, { cache: 1 });
  expectOwnProto(parts[1]?.value, { x: 1 });
  const call = assistant.toolCalls?.[0];
  expect(call?.arguments).toBe('{"__proto__":{"y":2},"city":"Paris"}');
  expectOwnProto(JSON.parse(call?.arguments ?? '{}'), { y: 2 });
  expectOwnProto(call?.providerOptions?.openaiChat, { z: 3 });
  expectOwnProto(tool.metadata, 'just a string');
  for (const message of messages) expect(Object.isFrozen(message.metadata)).toBe(true);
}

/** The store itself and, when the configuration can, a second store over the same data (which decodes it again). */
async function readers(spec: SpecScope, store: SessionStore): Promise<SessionStore[]> {
  return spec.config.reopen === undefined ? [store] : [store, await spec.reopen(store)];
}

/** Registers the hostile-values spec. */
export function hostileValuesSpec(suite: ConformanceSuite): void {
  suite.describe('hostile-values', 'hostile values', (spec) => {
    spec.it(
      '"__proto__" keys in metadata, tool arguments, provider options and raw parts survive save, append and load as own keys',
      async () => {
        const store = await spec.open();
        const [first, ...rest] = protoMessages();
        const session = Session.create({
          id: freshId(),
          messages: [first as Message],
          variables: { plan: parsed('{"__proto__":{"v":1},"step":2}') },
          metadata: parsed('{"__proto__":{"m":4},"label":"kept"}'),
        });
        const saved = await store.save(session);
        expectOwnProto(saved.metadata, { m: 4 });
        await store.append(session.id, rest);
        for (const reader of await readers(spec, store)) {
          const loaded = await reader.load(session.id);
          expectProtoMessages(loaded.messages);
          expectProtoMessages(await reader.readMessages(session.id));
          expectOwnProto(loaded.variables.plan, { v: 1 });
          expectOwnProto(loaded.metadata, { m: 4 });
          expect(loaded.metadata.label).toBe('kept');
        }
        expectNoPollution();
      },
    );

    spec.it('"__proto__" keys in the state of an append and in stored values survive as own keys', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: [Message.user('hello')] }));
      await store.append(saved.id, [Message.assistant('hi')], {
        state: {
          metadata: parsed('{"__proto__":{"m":1},"turn":1}'),
          variables: { plan: parsed('{"__proto__":["a"]}') },
        },
      });
      // Values only where the store declares them (the values spec checks the refusal elsewhere).
      const values = spec.has('values');
      if (values) {
        await store.values.set({ scope: 'app' }, { config: parsed('{"__proto__":{"a":1},"b":2}') });
        await store.values.set(
          { scope: 'user', userId: 'proto-user' },
          { prefs: parsed('{"nested":{"__proto__":null}}') },
        );
      }
      for (const reader of await readers(spec, store)) {
        const loaded = await reader.load(saved.id);
        expectOwnProto(loaded.metadata, { m: 1 });
        expectOwnProto(loaded.variables.plan, ['a']);
        if (!values) continue;
        const config = await reader.values.get({ scope: 'app' }, 'config');
        expectOwnProto(config, { a: 1 });
        expect(text(config)).toBe('{"__proto__":{"a":1},"b":2}');
        const prefs = (await reader.values.getAll({ scope: 'user', userId: 'proto-user' })).prefs as Record<
          string,
          unknown
        >;
        expectOwnProto(prefs.nested, null);
      }
      expectNoPollution();
    });

    spec.it(
      'too deep, cyclic, unreadable and non-JSON values are refused with typed errors, and nothing is written',
      async () => {
        const store = await spec.open();
        const saved = await store.save(
          Session.create({ id: freshId(), messages: [Message.user('hello')], metadata: { kept: true } }),
        );
        const values = spec.has('values');
        for (const [name, value] of hostileValues()) {
          const input = { role: 'user', content: 'hostile', metadata: { value } } as unknown as MessageInput;
          const failures = [
            await expectCode(() => store.append(saved.id, [input]), 'INVALID_MESSAGE'),
            await expectCode(
              () =>
                store.append(saved.id, [Message.user('fine')], {
                  state: { metadata: { value } as never, variables: {} },
                }),
              'INVALID_ARGUMENT',
            ),
            await expectCode(
              () =>
                store.append(saved.id, [Message.user('fine')], {
                  state: { metadata: {}, variables: { value } as never },
                }),
              'INVALID_ARGUMENT',
            ),
            await expectCode(
              () => store.values.set({ scope: 'app' }, { [name]: value as never }),
              values ? 'INVALID_ARGUMENT' : 'UNSUPPORTED',
            ),
          ];
          for (const failure of failures) expect(failure.message.length, name).toBeGreaterThan(0);
        }
        const loaded = await store.load(saved.id);
        expect(loaded.toJSON()).toEqual(saved.toJSON());
        if (values) expect(await store.values.getAll({ scope: 'app' })).toEqual({});
      },
    );
  });
}
