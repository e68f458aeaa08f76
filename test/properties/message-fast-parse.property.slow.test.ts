/**
 * `Message.fromStored` against `Message.create`: on every input the two must agree — the same
 * message (deep-equal, same JSON text) or the same error (class, code, message, details). Valid
 * stored records must take the fast path (else it silently stops being fast); damaged ones —
 * wrong types, unknown keys, bad roles and categories, invalid tool calls, prototype keys, messages
 * past `MAX_MESSAGE_CHARS`, JSON nested past `MAX_JSON_DEPTH` — must be rejected exactly when
 * `create` rejects them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { buildStoredMessage } from '../../src/message/fast-parse.js';
import { MAX_JSON_DEPTH, MAX_MESSAGE_CHARS, Message, type MessageInput } from '../../src/message/message.js';
import { historyArb } from '../support/arbitraries.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Tree = Record<string, unknown>;

/** What a call did: the message it returned, or the error it threw. */
type Outcome = { readonly ok: true; readonly message: Message } | { readonly ok: false; readonly error: unknown };

function outcome(run: () => Message): Outcome {
  try {
    return { ok: true, message: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The fields an error is compared on. */
function describeError(error: unknown): unknown {
  if (!(error instanceof Error)) return { thrown: error };
  return {
    type: error.constructor.name,
    message: error.message,
    code: ChatstateError.isInstance(error) ? error.code : undefined,
    details: ChatstateError.isInstance(error) ? error.details : undefined,
  };
}

/**
 * The first difference between two values, compared as structures: same prototypes, same own keys
 * in the same order (symbols and non-enumerable ones included), same attributes, and values equal
 * by `Object.is` (so `-0` is not `0`). Stricter than `toStrictEqual`, which also trips on an own
 * `constructor` key (it takes it for the class).
 */
function difference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? undefined : `${path}: ${String(a)} ≠ ${String(b)}`;
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: different prototypes`;
  const keys = Reflect.ownKeys(a);
  const others = Reflect.ownKeys(b);
  if (keys.map(String).join('\u0000') !== others.map(String).join('\u0000'))
    return `${path}: keys ${keys.map(String).join(',')} ≠ ${others.map(String).join(',')}`;
  for (const key of keys) {
    const mine = Object.getOwnPropertyDescriptor(a, key);
    const theirs = Object.getOwnPropertyDescriptor(b, key);
    if (
      mine?.enumerable !== theirs?.enumerable ||
      mine?.writable !== theirs?.writable ||
      'get' in (mine ?? {}) ||
      'get' in (theirs ?? {})
    ) {
      return `${path}.${String(key)}: different attributes`;
    }
    const found = difference(mine?.value, theirs?.value, `${path}.${String(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every object and array reachable from `value` (strings and other primitives aside). */
function containers(value: unknown, into: Set<object> = new Set()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  for (const key of Object.keys(value)) containers((value as Tree)[key], into);
  return into;
}

/** Asserts that `fromStored(value)` and `create(value)` agree, and that the fast path is sound. */
function expectAgreement(value: unknown): Outcome {
  const before = containers(value);
  const frozenBefore = [...before].filter((object) => Object.isFrozen(object)).length;
  const fast = outcome(() => Message.fromStored(value));
  const slow = outcome(() => Message.create(value as MessageInput));
  expect(fast.ok).toBe(slow.ok);
  if (!fast.ok || !slow.ok) {
    expect(describeError(fast.ok ? undefined : fast.error)).toEqual(describeError(slow.ok ? undefined : slow.error));
    // Never a message from the fast path where `create` refuses one.
    expect(buildStoredMessage(value)).toBeUndefined();
    return fast;
  }
  let [a, b] = [fast.message, slow.message];
  // Without an id or a timestamp `create` invents them (differently each call): compare the rest.
  const record = value as Tree;
  if (record.id === undefined || record.timestamp === undefined) {
    const strip = (message: Message): Tree => {
      const { id, timestamp, ...rest } = message;
      return {
        ...rest,
        id: record.id === undefined ? 'invented' : id,
        timestamp: record.timestamp === undefined ? 'invented' : timestamp,
      };
    };
    [a, b] = [strip(a) as unknown as Message, strip(b) as unknown as Message];
  }
  expect(difference(a, b)).toBeUndefined();
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  expect(Message.is(fast.message)).toBe(true);
  // Deep-frozen, sharing nothing with the input, and leaving the input as it was.
  for (const object of containers(fast.message)) {
    expect(Object.isFrozen(object)).toBe(true);
    expect(before.has(object)).toBe(false);
  }
  expect([...before].filter((object) => Object.isFrozen(object)).length).toBe(frozenBefore);
  return fast;
}

// ---------------------------------------------------------------------------------------------
// Valid stored records, with every field and part the schema knows.

const textArb = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('hello', 'réseau 数据 🙂', 'line\nbreak', '{"a":1}'),
);
const nonBlankArb = textArb.filter((text) => text.trim().length > 0);
const providerArb = fc.constantFrom('openaiChat', 'openaiResponses', 'anthropic', 'gemini', 'aiSdk');
const keyArb = fc.oneof(
  fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
  fc.constantFrom('constructor', 'toString', 'valueOf', '0', '10', 'hasOwnProperty'),
);
const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 10 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(keyArb, tie('json'), { maxKeys: 3 }),
  ),
})).json;
const jsonObjectArb = fc.dictionary(keyArb, jsonArb, { maxKeys: 3 });
const providerOptionsArb = fc.dictionary(keyArb, jsonObjectArb, { minKeys: 1, maxKeys: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 });
const idArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/);
const callIdArb = fc.stringMatching(/^[\x21-\x7e]{1,24}$/);
const timestampArb = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((date) =>
    fc.constantFrom(
      date.toISOString(),
      date.toISOString().replace('Z', '+05:30'),
      date.toISOString().replace(/\.\d+Z$/, 'Z'),
      date.toISOString().replace('Z', '123Z'),
    ),
  );

/** Drops the keys whose value is `undefined`, as JSON would. */
function defined(fields: Record<string, unknown>): Tree {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const partArb: fc.Arbitrary<Tree> = fc.oneof(
  fc
    .record({ text: textArb, providerOptions: maybe(providerOptionsArb) })
    .map((part) => defined({ type: 'text', ...part })),
  fc
    .record({
      source: fc.constantFrom('url', 'data'),
      value: fc.string({ minLength: 1, maxLength: 12 }),
      mediaType: maybe(fc.constantFrom('image/png', 'image/jpeg')),
      detail: maybe(fc.constantFrom('auto', 'low', 'high')),
      providerOptions: maybe(providerOptionsArb),
    })
    .map(({ source, value, ...rest }) => defined({ type: 'image', [source]: value, ...rest })),
  fc
    .record({
      source: fc.constantFrom('url', 'data', 'fileId'),
      value: fc.string({ minLength: 1, maxLength: 12 }),
      mediaType: fc.constantFrom('application/pdf', 'text/plain'),
      filename: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      providerOptions: maybe(providerOptionsArb),
    })
    .map(({ source, value, ...rest }) => defined({ type: 'file', [source]: value, ...rest })),
  fc
    .record({
      text: textArb,
      signature: maybe(fc.string({ maxLength: 12 })),
      provider: maybe(providerArb),
      providerOptions: maybe(providerOptionsArb),
    })
    .map((part) => defined({ type: 'reasoning', ...part })),
  fc.record({ provider: providerArb, value: jsonArb }).map((part) => ({ type: 'raw', ...part })),
);

const toolCallsArb = fc.uniqueArray(
  fc
    .record({
      id: callIdArb,
      name: fc.string({ minLength: 1, maxLength: 12 }),
      arguments: fc.oneof(fc.constant('{}'), fc.json({ maxDepth: 1 }), fc.string({ maxLength: 8 })),
      providerOptions: maybe(providerOptionsArb),
    })
    .map(defined),
  { minLength: 1, maxLength: 3, selector: (call) => call.id },
);

const commonArb = fc.record({
  id: idArb,
  timestamp: timestampArb,
  name: maybe(fc.string({ minLength: 1, maxLength: 12 })),
  metadata: maybe(jsonObjectArb),
  tokens: maybe(fc.dictionary(keyArb, fc.nat(), { maxKeys: 2 })),
  seq: maybe(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
});

/** A valid stored record, as `encodeMessage` writes it and `decodeMessage` reads it (plus `seq`). */
const storedArb: fc.Arbitrary<Tree> = fc
  .tuple(
    commonArb,
    fc.oneof(
      fc.record({
        role: fc.constantFrom('system', 'user', 'assistant'),
        content: fc.oneof(nonBlankArb, fc.array(partArb, { minLength: 1, maxLength: 3 })),
      }),
      fc.record({
        role: fc.constant('assistant'),
        content: fc.oneof(textArb, fc.array(partArb, { maxLength: 2 })),
        toolCalls: toolCallsArb,
      }),
      fc.record({
        role: fc.constant('tool'),
        content: fc.oneof(textArb, fc.array(partArb, { maxLength: 2 })),
        toolCallId: callIdArb,
      }),
    ),
    fc.boolean(),
  )
  .map(([common, body, withCategory]) => {
    const category = { system: 'system', user: 'dialog', assistant: 'dialog', tool: 'tool_output' }[
      body.role as string
    ];
    return defined({ ...common, ...body, category: withCategory ? category : undefined });
  })
  // Text-only parts with blank text are empty content: `create` refuses those, so keep them out here.
  .filter((record) => outcome(() => Message.create(record as MessageInput)).ok)
  .map((record) => JSON.parse(JSON.stringify(record)) as Tree);

// ---------------------------------------------------------------------------------------------
// Damage: one change anywhere in a record.

const huge = 'x'.repeat(MAX_MESSAGE_CHARS + 1);

/** Values a damaged field may take: wrong types, edge numbers, near-misses of valid strings, non-JSON things. */
const weirdArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    0,
    -0,
    -1,
    1.5,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    NaN,
    Infinity,
    -Infinity,
    '',
    ' ',
    '\n\t',
    'x',
    'a'.repeat(257),
    'has space',
    'user',
    'assistant',
    'tool',
    'system',
    'context',
    'dialog',
    'tool_output',
    'text',
    'image',
    'raw',
    'anthropic',
    'auto',
    '2024-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-01-01T00:00:00+01:00',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:00Z',
    '2024-01-01',
    true,
    false,
    [],
    {},
    [1, 'a'],
    { a: 1 },
    { type: 'text', text: 'x' },
    { type: 'text', text: ' ' },
    { type: 'image', url: 'u', data: 'd' },
    { type: 'file', mediaType: 'a/b' },
    { id: 'c1', name: 'n', arguments: '{}' },
    { id: 'c1', name: 'n', arguments: { q: 1 } },
    { id: 'c1', name: 'n' },
    [
      { id: 'c1', name: 'n', arguments: '{}' },
      { id: 'c1', name: 'm', arguments: '{}' },
    ],
    JSON.parse('{"__proto__": {"polluted": true}}'),
    JSON.parse('{"constructor": {"prototype": 1}}'),
  ),
  fc
    .constantFrom<() => unknown>(
      () => Object.create(null) as unknown,
      () => new Date(0),
      () => new Map(),
      () => Symbol('s'),
      () => () => 1,
      () => 10n,
      () => ({ [Symbol('k')]: 1 }),
      () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }),
      () => Object.create({ inherited: 1 }) as unknown,
      // eslint-disable-next-line no-sparse-arrays
      () => [1, , 3],
    )
    .map((make) => make()),
  jsonArb,
);

const call = (fields: Tree): Tree => ({ id: 'c1', name: 'run', arguments: '{}', ...fields });

/** Near misses, field by field: values just inside and just outside what each field allows. */
const NEAR_MISSES: Readonly<Record<string, readonly unknown[]>> = {
  id: ['', ' a', 'a b', '-a', '_a', 'a'.repeat(256), 'a'.repeat(257), 'ok.id:1-2_3', 'é', 5, undefined],
  role: ['', 'User', 'developer', 'system', 'user', 'assistant', 'tool', null],
  category: ['system', 'context', 'dialog', 'tool_output', 'other', '', null, undefined],
  content: [
    '',
    ' ',
    '\n',
    'x',
    [],
    [{ type: 'text', text: ' ' }],
    [{ type: 'text', text: 'x' }],
    [{ type: 'image', url: 'u' }],
    [{ type: 'image' }],
    [{ type: 'image', url: '' }],
    [{ type: 'file', fileId: 'f' }],
    [{ type: 'reasoning', text: '' }],
    [{ type: 'raw', provider: 'gemini' }],
    [{ type: 'raw', provider: 'gemini', value: null }],
    [{ type: 'video', url: 'u' }],
    [null],
    5,
    [{ type: 'file', fileId: 'f', mediaType: '' }],
    [{ type: 'file', fileId: 'f', mediaType: 'a/b', filename: '' }],
    [{ type: 'file', url: 'u', data: 'd', mediaType: 'a/b' }],
    [{ type: 'image', url: 'u', mediaType: '' }],
    [{ type: 'image', url: 'u', detail: 'medium' }],
    [{ type: 'reasoning', text: 't', signature: 5 }],
    [{ type: 'reasoning', text: 't', provider: 'openai' }],
    [{ type: 'text', text: 'x', providerOptions: { anthropic: [] } }],
    [{ type: 'text', text: 'x', providerOptions: { anthropic: { cache: { type: 'ephemeral' } } } }],
  ],
  toolCalls: [
    [],
    [call({})],
    [call({}), call({})],
    [call({}), call({ id: 'c2' })],
    [call({ id: 'a b' })],
    [call({ id: '' })],
    [call({ id: 'x'.repeat(257) })],
    [call({ name: '' })],
    [call({ name: 'n'.repeat(256) })],
    [call({ name: 'n'.repeat(257) })],
    [call({ arguments: { q: 1 } })],
    [call({ arguments: undefined })],
    [call({ arguments: 5 })],
    [call({ extra: 1 })],
    [call({ providerOptions: { openaiChat: { a: 1 } } })],
    [call({ providerOptions: { openaiChat: 1 } })],
    [call({ providerOptions: undefined })],
    {},
    null,
  ],
  toolCallId: ['', 'a b', 'c1', 'x'.repeat(256), 'x'.repeat(257), 'é', 5, null],
  name: ['', 'n', 'n'.repeat(256), 'n'.repeat(257), 5, null],
  timestamp: [
    '2024-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-01-01T00:00:00.5+14:00',
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:00:00',
    '2024-01-01 00:00:00Z',
    '',
    0,
  ],
  metadata: [
    {},
    [],
    null,
    'x',
    { a: { b: [1, { c: null }] } },
    { a: NaN },
    { a: undefined },
    { a: [undefined] },
    { a: () => 1 },
    { a: new Date(0) },
  ],
  tokens: [
    {},
    { a: 0 },
    { a: -0 },
    { a: -1 },
    { a: 1.5 },
    { a: 2 ** 53 - 1 },
    { a: 2 ** 53 },
    { a: '1' },
    { a: NaN },
    [],
    null,
  ],
  seq: [0, -0, -1, 1, 1.5, 2 ** 53 - 1, 2 ** 53, '1', NaN, null],
};

const fieldDamageArb = fc
  .constantFrom(...Object.keys(NEAR_MISSES))
  .chain((key) => fc.tuple(fc.constant(key), fc.constantFrom(...(NEAR_MISSES[key] ?? []))));

const addedKeyArb = fc.constantFrom(
  'extra',
  '__proto__',
  'constructor',
  'toString',
  'seq',
  'id',
  'type',
  'providerOptions',
  'value',
  'role',
  'arguments',
  'signature',
);

type Damage =
  | { readonly op: 'set'; readonly value: unknown }
  | { readonly op: 'delete' }
  | { readonly op: 'add'; readonly key: string; readonly value: unknown };

const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 3, arbitrary: weirdArb.map((value): Damage => ({ op: 'set', value })) },
  { weight: 1, arbitrary: fc.constant<Damage>({ op: 'delete' }) },
  { weight: 2, arbitrary: fc.tuple(addedKeyArb, weirdArb).map(([key, value]): Damage => ({ op: 'add', key, value })) },
);

/** Every (container, key) slot of a JSON tree, the root's own keys included. */
function slots(tree: unknown, into: Array<[Tree, string]> = []): Array<[Tree, string]> {
  if (typeof tree !== 'object' || tree === null) return into;
  for (const key of Object.keys(tree)) {
    into.push([tree as Tree, key]);
    slots((tree as Tree)[key], into);
  }
  return into;
}

/** `record` (a fresh JSON tree) with `damage` done at slot `at` (modulo the number of slots). */
function damaged(record: Tree, at: number, damage: Damage): Tree {
  const all = slots(record);
  const [container, key] = all[at % all.length] ?? [record, 'id'];
  const target =
    damage.op === 'add'
      ? typeof container[key] === 'object' && container[key] !== null
        ? (container[key] as Tree)
        : container
      : container;
  switch (damage.op) {
    case 'set':
      container[key] = damage.value;
      break;
    case 'delete':
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete container[key];
      break;
    case 'add':
      // An own property even for `__proto__` (as JSON.parse makes it), not a prototype change.
      Object.defineProperty(target, damage.key, {
        value: damage.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      break;
    default: {
      const never: never = damage;
      throw new Error(`unknown damage ${JSON.stringify(never)}`);
    }
  }
  return record;
}

describe('Message.fromStored', () => {
  it('gives exactly what Message.create gives for every valid stored record, on its fast path', () => {
    fc.assert(
      fc.property(storedArb, (record) => {
        expect(buildStoredMessage(record)).toBeDefined();
        expectAgreement(record);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back every message of realistic histories, as the stores write them', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        history.forEach((message, index) => {
          const record = { ...(JSON.parse(JSON.stringify(message)) as Tree), seq: index + 1 };
          expect(buildStoredMessage(record)).toBeDefined();
          const read = expectAgreement(record);
          expect(read.ok && difference(read.message, Object.freeze({ ...message, seq: index + 1 }))).toBeUndefined();
        });
      }),
      { numRuns: 200 },
    );
  });

  it('accepts and rejects damaged records exactly as zod does, with the same error', () => {
    let rejected = 0;
    let total = 0;
    fc.assert(
      fc.property(storedArb, fc.nat(), damageArb, (record, at, damage) => {
        total += 1;
        // A copy: fast-check hands the same record again while shrinking.
        if (!expectAgreement(damaged(JSON.parse(JSON.stringify(record)) as Tree, at, damage)).ok) rejected += 1;
      }),
      { numRuns: 5000 },
    );
    // The damage must mostly break records, or this property tests little.
    expect(rejected / total).toBeGreaterThan(0.5);
  });

  it('agrees with create on near misses of every field', () => {
    fc.assert(
      fc.property(storedArb, fieldDamageArb, (record, [key, value]) => {
        expectAgreement({ ...record, [key]: value });
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with create on arbitrary values, not only on damaged records', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything({ withNullPrototype: true, withObjectString: true }), fc.object(), jsonObjectArb),
        (value) => {
          expectAgreement(value);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('rejects a message past MAX_MESSAGE_CHARS as create does (TOO_LARGE), and accepts it up to the limit', () => {
    const base = { id: 'm1', role: 'user', category: 'dialog', timestamp: '2025-01-01T00:00:00.000Z' };
    // The whole message counts, as its JSON text: this much is the envelope of a message with content "".
    const envelope = JSON.stringify({ ...base, content: '', metadata: {} }).length;
    const exactly = 'x'.repeat(MAX_MESSAGE_CHARS - envelope);
    const half = 'y'.repeat(MAX_MESSAGE_CHARS / 2);
    const call = { id: 'c1', name: 'run' };
    const cases: Array<[string, Tree, boolean]> = [
      ['content over the limit', { ...base, content: huge }, false],
      ['a message of exactly the limit', { ...base, content: exactly }, true],
      ['a message one character over', { ...base, content: `${exactly}x` }, false],
      [
        'two text parts over',
        {
          ...base,
          content: [
            { type: 'text', text: half },
            { type: 'text', text: `${half}z` },
          ],
        },
        false,
      ],
      [
        'an image part over',
        {
          ...base,
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image', data: huge.slice(10) },
          ],
        },
        false,
      ],
      [
        'a raw part over',
        {
          ...base,
          content: [
            { type: 'text', text: 'hi' },
            { type: 'raw', provider: 'gemini', value: { blob: huge.slice(10) } },
          ],
        },
        false,
      ],
      [
        'a tool message over',
        { ...base, role: 'tool', category: 'tool_output', toolCallId: 'c1', content: huge },
        false,
      ],
      [
        'tool arguments over',
        { ...base, role: 'assistant', content: '', toolCalls: [{ ...call, arguments: huge }] },
        false,
      ],
      [
        'tool arguments within, with content that fits alone',
        { ...base, role: 'assistant', content: half, toolCalls: [{ ...call, arguments: half }] },
        false,
      ],
      ['metadata over', { ...base, content: 'hi', metadata: { blob: huge } }, false],
      [
        'metadata that fits alone, with content that fits alone',
        { ...base, content: half, metadata: { blob: half } },
        false,
      ],
      [
        'token counts with long keys',
        {
          ...base,
          content: half,
          tokens: Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`${index}:${'k'.repeat(10_000)}`, 1])),
        },
        false,
      ],
    ];
    for (const [name, record, accepted] of cases) {
      const result = expectAgreement(record);
      expect([name, result.ok]).toEqual([name, accepted]);
      if (!result.ok) expect([name, (result.error as ChatstateError).code]).toEqual([name, 'TOO_LARGE']);
    }
  });

  it('refuses JSON nested deeper than MAX_JSON_DEPTH as create does, and reads up to it on the fast path', () => {
    const nest = (depth: number): Json => (depth === 0 ? 'leaf' : { next: nest(depth - 1) });
    const record = (depth: number): Tree => ({
      id: 'm1',
      role: 'user',
      content: 'hi',
      timestamp: '2025-01-01T00:00:00Z',
      metadata: { deep: nest(depth) },
    });
    for (const depth of [10, 63, MAX_JSON_DEPTH]) {
      expect(buildStoredMessage(record(depth))).toBeDefined();
      expect(expectAgreement(record(depth)).ok).toBe(true);
    }
    for (const depth of [MAX_JSON_DEPTH + 1, 100, 5000]) {
      const result = expectAgreement(record(depth));
      expect(result.ok).toBe(false);
      expect((result as { error: ChatstateError }).error.code).toBe('INVALID_MESSAGE');
    }
  });

  it('keeps "__proto__" keys of JSON values as own keys on the fast path, and refuses them where a field is expected', () => {
    const base = '"id":"m1","role":"user","content":"hi","timestamp":"2025-01-01T00:00:00Z"';
    const kept = [
      `{${base},"metadata":{"__proto__":{"x":1},"keep":2}}`,
      `{${base},"metadata":{"nested":{"__proto__":[1]}}}`,
      `{${base},"tokens":{"__proto__":5}}`,
      `{"id":"m1","role":"assistant","content":"","timestamp":"2025-01-01T00:00:00Z","toolCalls":[{"id":"c","name":"n","arguments":"{}","providerOptions":{"__proto__":{}}}]}`,
      `{"id":"m1","role":"user","timestamp":"2025-01-01T00:00:00Z","content":[{"type":"raw","provider":"gemini","value":{"__proto__":{"a":1}}}]}`,
      `{${base},"metadata":{"constructor":{"prototype":{"polluted":true}},"toString":"x"}}`,
    ];
    for (const text of kept) {
      const record = JSON.parse(text) as unknown;
      expect(buildStoredMessage(record)).toBeDefined();
      const result = expectAgreement(record);
      expect(result.ok).toBe(true);
      // Read back as written: the JSON text of the message holds every key of the record.
      const written = (result as { message: Message }).message;
      const expected = JSON.parse(text) as Tree;
      expect(JSON.parse(JSON.stringify(written))).toEqual({ category: 'dialog', metadata: {}, ...expected });
      expect(JSON.stringify(written)).toContain(text.includes('__proto__') ? '"__proto__"' : '"constructor"');
      expect(Object.getPrototypeOf((result as { message: Message }).message.metadata)).toBe(Object.prototype);
    }
    for (const text of [
      `{${base},"__proto__":{"role":"tool"}}`,
      `{"id":"m1","role":"user","timestamp":"2025-01-01T00:00:00Z","content":[{"type":"text","text":"x","__proto__":{}}]}`,
    ]) {
      const record = JSON.parse(text) as unknown;
      expect(buildStoredMessage(record)).toBeUndefined();
      expect(expectAgreement(record).ok).toBe(false);
    }
    expect(({} as Tree).polluted).toBeUndefined();
    expect(({} as Tree).x).toBeUndefined();
  });
});
