/**
 * Refused writes: a write answered with an error leaves the store as it was. A property
 * (fast-check) sends random bad writes through `save`, `append`, `values.set`, `delete` and
 * `forgetUser` — hostile ids and owners, look-alike sessions, versions and sequence numbers past
 * their bounds, bad options, invalid messages and append state, bad value owners, keys and values,
 * calls over the size limits, stale versions, appends to missing sessions — among good writes.
 * After each refusal it checks that the error is a typed one of the codes the call may give, that
 * everything the API reads (list, every session whole, every value owner the run used, full-text
 * hits of the refused text) is unchanged, and, for a store with a directory, that no byte of its
 * files changed.
 * @module
 */
import type * as FastCheck from 'fast-check';
import { expect } from 'vitest';
import { MAX_SEQ, MAX_TTL_MS, MAX_VERSION, MAX_VERSION_STEP } from '../../bounds.js';
import { ChatstateError, errorMessage, type ErrorCode } from '../../errors.js';
import { MAX_MESSAGE_CHARS, Message } from '../../message/message.js';
import type { JsonValue } from '../../message/schema.js';
import { Session } from '../../session/session.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { MAX_VALUE_BYTES, MAX_VALUE_KEY_CHARS } from '../../store/values.js';
import { fileDigests } from '../file-digests.js';
import { expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite, SpecScope } from '../suite.js';
import { hostileValues } from './hostile-values.js';

/**
 * fast-check, an optional peer dependency of the kit (only this spec uses it), or why it is
 * missing: the property then skips with that reason instead of failing every store's suite.
 */
const fastCheck: { readonly fc: typeof FastCheck } | { readonly missing: string } = await import('fast-check').then(
  (fc) => ({ fc }),
  (error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    return {
      missing: `fast-check could not be loaded (${errorMessage(error)}); install it with \`npm install -D fast-check\``,
    };
  },
);

/** Random runs of the property per store: each is a fresh store and `MIN_STEPS` to `MAX_STEPS` calls. */
const RUNS = 15;
const MIN_STEPS = 6;
const MAX_STEPS = 16;

/** A word no good write holds: every message of a refused append carries it, so a search for it must find nothing. */
const REFUSED_WORD = 'zqrefusedwrite';

/**
 * How far past MAX_SEQ and MAX_VERSION a bad save goes: a session imported at the bounds (a good
 * write) is written on past them, and numbers near what the store would give itself are taken
 * (versions up to MAX_VERSION_STEP beyond), not refused.
 */
const FAR = MAX_VERSION_STEP * 4;

/** Retention of the good writes that set one: long enough that nothing expires during a run. */
const GOOD_TTL_MS = 60 * 60 * 1000;

/** A message a good write adds: text of a role, or an assistant's tool call with its result. */
type GoodMessage =
  | { readonly kind: 'user' | 'assistant'; readonly text: string }
  | { readonly kind: 'tool pair'; readonly call: string };

/**
 * A write that must succeed. `target` picks one of the run's live sessions (modulo their number),
 * `user` one of its two users, `owner` one of the value owners the run uses.
 */
type GoodStep =
  | { readonly good: 'create'; readonly user: number; readonly messages: readonly GoodMessage[]; readonly ttl: boolean }
  | { readonly good: 'import at the bounds'; readonly user: number; readonly version: number; readonly seq: number }
  | {
      readonly good: 'save again';
      readonly target: number;
      readonly messages: readonly GoodMessage[];
      readonly note: string;
    }
  | {
      readonly good: 'append';
      readonly target: number;
      readonly messages: readonly GoodMessage[];
      readonly state: boolean;
    }
  | {
      readonly good: 'set values';
      readonly owner: number;
      readonly set: Readonly<Record<string, JsonValue>>;
      readonly remove: readonly string[];
    }
  | { readonly good: 'delete'; readonly target: number }
  | { readonly good: 'forget user'; readonly user: number };

/** A write that must be refused; the names of flaws and values are keys of the tables below. */
type BadStep =
  | { readonly bad: 'save a look-alike session'; readonly target: number; readonly flaw: string }
  | { readonly bad: 'save a hostile id'; readonly id: unknown }
  | { readonly bad: 'save a hostile owner'; readonly field: 'userId' | 'agentId'; readonly owner: unknown }
  | { readonly bad: 'save what is not a session'; readonly value: string }
  | {
      readonly bad: 'save with a bad option';
      readonly target: number;
      readonly option: string;
      readonly value: unknown;
    }
  | { readonly bad: 'save at a stale version'; readonly target: number; readonly offset: number }
  | { readonly bad: 'save a seq past MAX_SEQ'; readonly target: number; readonly seq: number }
  | { readonly bad: 'save a version past MAX_VERSION'; readonly target: number; readonly version: number }
  | { readonly bad: 'append to a hostile id'; readonly id: unknown }
  | { readonly bad: 'append to a missing session'; readonly messages: readonly GoodMessage[] }
  | { readonly bad: 'append at a stale version'; readonly target: number; readonly offset: number }
  | { readonly bad: 'append with a bad expectedVersion'; readonly target: number; readonly value: unknown }
  | { readonly bad: 'append what is not an array'; readonly target: number; readonly value: string }
  | {
      readonly bad: 'append an invalid message';
      readonly target: number;
      readonly before: number;
      readonly flaw: string;
      readonly after: number;
    }
  | { readonly bad: 'append with bad state'; readonly target: number; readonly flaw: string }
  | { readonly bad: 'set values of a bad owner'; readonly owner: string }
  | { readonly bad: 'set a bad value key'; readonly owner: number; readonly key: string }
  | { readonly bad: 'set a bad value'; readonly owner: number; readonly value: string }
  | { readonly bad: 'set values that are not entries'; readonly owner: number; readonly value: string }
  | { readonly bad: 'delete a hostile id'; readonly id: unknown }
  | { readonly bad: 'forget a hostile user id'; readonly id: unknown };

type Step = GoodStep | BadStep;

/** A flawed thing and the codes a store may refuse it with. */
interface Flawed {
  readonly make: () => unknown;
  readonly codes: readonly ErrorCode[];
}

const INVALID_MESSAGE: readonly ErrorCode[] = ['INVALID_MESSAGE'];

/** Message inputs `Message.create` refuses, by what is wrong with them. */
const MESSAGE_FLAWS: Readonly<Record<string, Flawed>> = (() => {
  const text = `${REFUSED_WORD} flawed`;
  const flaw = (make: () => unknown, codes = INVALID_MESSAGE): Flawed => ({ make, codes });
  const user = (extra: Record<string, unknown>): Flawed => flaw(() => ({ role: 'user', content: text, ...extra }));
  return {
    'not an object: null': flaw(() => null),
    'not an object: text': flaw(() => text),
    'not an object: a number': flaw(() => 42),
    'not an object: an array': flaw(() => [{ role: 'user', content: text }]),
    'no role': flaw(() => ({ content: text })),
    'an unknown role': user({ role: 'robot' }),
    'empty content': user({ content: '' }),
    'blank content': user({ content: ' \n\t ' }),
    'no parts': user({ content: [] }),
    'content a number': user({ content: 42 }),
    'a text part without text': user({ content: [{ type: 'text' }] }),
    'an image without url or data': user({ content: [{ type: 'image', mediaType: 'image/png' }] }),
    'an image with url and data': user({
      content: [{ type: 'image', url: 'https://example.com/a.png', data: 'AA==' }],
    }),
    'a file without a source': user({ content: [{ type: 'file', mediaType: 'text/plain' }] }),
    'a part of an unknown type': user({ content: [{ type: 'hologram', text }] }),
    'a raw part of an unknown provider': user({ content: [{ type: 'raw', provider: 'nobody', value: text }] }),
    'a bad message id': user({ id: 'has space' }),
    'an empty message id': user({ id: '' }),
    'a message id too long': user({ id: `m${'x'.repeat(300)}` }),
    'an unknown category': user({ category: 'urgent' }),
    'a timestamp that is no date': user({ timestamp: 'yesterday' }),
    'a timestamp of month 13': user({ timestamp: '2024-13-01T00:00:00Z' }),
    'seq 0': user({ seq: 0 }),
    'a negative seq': user({ seq: -1 }),
    'a fractional seq': user({ seq: 1.5 }),
    'seq as text': user({ seq: '3' }),
    'an empty name': user({ name: '' }),
    'metadata an array': user({ metadata: [text] }),
    'metadata with NaN': user({ metadata: { score: Number.NaN } }),
    'a negative token count': user({ tokens: { counter: -1 } }),
    'a field no message has': user({ mood: 'cheerful' }),
    'toolCallId on a user message': user({ toolCallId: 'call_1' }),
    'toolCalls on a user message': user({ toolCalls: [{ id: 'call_1', name: 'lookup' }] }),
    'a tool message without toolCallId': flaw(() => ({ role: 'tool', content: text })),
    'a tool message of category dialog': flaw(() => ({
      role: 'tool',
      toolCallId: 'call_1',
      category: 'dialog',
      content: text,
    })),
    'tool calls with the same id': flaw(() => ({
      role: 'assistant',
      content: text,
      toolCalls: [
        { id: 'call_1', name: 'lookup' },
        { id: 'call_1', name: 'lookup' },
      ],
    })),
    'a tool call id with a space': flaw(() => ({
      role: 'assistant',
      content: text,
      toolCalls: [{ id: 'call 1', name: 'lookup' }],
    })),
    'a tool call without a name': flaw(() => ({
      role: 'assistant',
      content: text,
      toolCalls: [{ id: 'call_1', name: '' }],
    })),
    'tool arguments that are a number': flaw(() => ({
      role: 'assistant',
      content: text,
      toolCalls: [{ id: 'call_1', name: 'lookup', arguments: 42 }],
    })),
    'a message over MAX_MESSAGE_CHARS': flaw(
      () => ({ role: 'user', content: `${REFUSED_WORD} ${'x'.repeat(MAX_MESSAGE_CHARS)}` }),
      ['TOO_LARGE'],
    ),
  };
})();

/** Look-alike sessions: built on `Session.prototype` from a real one, with one field changed (or none). */
const LOOK_ALIKE_FLAWS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'version NaN': { version: Number.NaN },
  'version -1': { version: -1 },
  'version 1.5': { version: 1.5 },
  'version as text': { version: '7' },
  'version 2^60': { version: 2 ** 60 },
  'createdAt no date': { createdAt: 'not a date' },
  'updatedAt no date': { updatedAt: 'not a date' },
  'metadata with NaN': { metadata: { score: Number.NaN } },
  'metadata an array': { metadata: [REFUSED_WORD] },
  'a reserved variable name': { variables: JSON.parse('{"__proto__":1}') as unknown },
  'usage with negative tokens': { lastUsage: { inputTokens: -1, messageCount: 0 } },
  'messages that are plain objects': { messages: [{ id: 'plain', role: 'user', content: REFUSED_WORD, seq: 1 }] },
  'messages that are no array': { messages: REFUSED_WORD },
  // Last: refused for being a look-alike alone, its fields being a real session's.
  'an exact copy': {},
};

/** What `save` is given instead of a session. */
const NOT_SESSIONS: Readonly<Record<string, (base: Session) => unknown>> = {
  null: () => null,
  undefined: () => undefined,
  'a number': () => 42,
  'a string': (base) => JSON.stringify(base.toJSON()),
  'an empty object': () => ({}),
  "a session's JSON": (base) => base.toJSON(),
  'an array': (base) => [base],
};

/** The state of an append, flawed: each with the codes a store may refuse it with. */
const STATE_FLAWS: Readonly<Record<string, Flawed>> = {
  'not an object': { make: () => REFUSED_WORD, codes: ['INVALID_ARGUMENT'] },
  'no metadata': { make: () => ({ variables: {} }), codes: ['INVALID_ARGUMENT'] },
  'no variables': { make: () => ({ metadata: {} }), codes: ['INVALID_ARGUMENT'] },
  'metadata an array': { make: () => ({ metadata: [1], variables: {} }), codes: ['INVALID_ARGUMENT'] },
  'metadata with NaN': { make: () => ({ metadata: { a: Number.NaN }, variables: {} }), codes: ['INVALID_ARGUMENT'] },
  'a cycle in the variables': {
    make: () => {
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      return { metadata: {}, variables: { cycle } };
    },
    codes: ['INVALID_ARGUMENT'],
  },
  'a reserved variable name': {
    make: () => ({ metadata: {}, variables: JSON.parse('{"constructor":1}') as unknown }),
    codes: ['INVALID_SESSION'],
  },
  'usage with negative tokens': {
    make: () => ({ metadata: {}, variables: {}, lastUsage: { inputTokens: -5, messageCount: 1 } }),
    codes: ['INVALID_ARGUMENT'],
  },
  'usage without messageCount': {
    make: () => ({ metadata: {}, variables: {}, lastUsage: { inputTokens: 5 } }),
    codes: ['INVALID_ARGUMENT'],
  },
  'metadata over the size limit': {
    make: () => ({ metadata: { big: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }, variables: {} }),
    codes: ['INVALID_ARGUMENT', 'TOO_LARGE'],
  },
};

/** What `append` is given instead of an array of messages. */
const NOT_ARRAYS: Readonly<Record<string, unknown>> = {
  null: null,
  undefined: undefined,
  'a string': REFUSED_WORD,
  'a message alone': { role: 'user', content: REFUSED_WORD },
  'an array-like object': { length: 1, 0: { role: 'user', content: REFUSED_WORD } },
};

/** Value owners that name no owner. */
const BAD_OWNERS: Readonly<Record<string, unknown>> = {
  null: null,
  'an unknown scope': { scope: 'planet' },
  'a user scope without userId': { scope: 'user' },
  'an empty userId': { scope: 'user', userId: '' },
  'a userId with a lone surrogate': { scope: 'user', userId: 'a\ud800' },
  'a userId too long': { scope: 'user', userId: 'u'.repeat(257) },
  'an agent scope without userId': { scope: 'agent', agentId: 'helper' },
  'an agent scope without agentId': { scope: 'agent', userId: 'user-a' },
  'a session scope with a hostile id': { scope: 'session', sessionId: '../escape' },
  'a session scope without an id': { scope: 'session' },
};

/** What `values.set` is given instead of entries. */
const NOT_ENTRIES: Readonly<Record<string, unknown>> = {
  null: null,
  undefined: undefined,
  'an array': [1, 2],
  'a string': REFUSED_WORD,
  'a number': 42,
};

/** A value too large to store. */
const TOO_LARGE_VALUE = 'a string over MAX_VALUE_BYTES';

/** Error codes of a refused value write on a store without values. */
const UNSUPPORTED: readonly ErrorCode[] = ['UNSUPPORTED'];

/** A hostile value of `hostileValues()` by name, made fresh. */
function hostileValue(name: string): unknown {
  const found = hostileValues().find(([each]) => each === name);
  if (found === undefined) throw new Error(`no hostile value named ${name}`);
  return found[1];
}

/** The messages of `specs`. */
function messagesOf(specs: readonly GoodMessage[]): Message[] {
  return specs.flatMap((spec) =>
    spec.kind === 'tool pair'
      ? [
          Message.assistant('', { toolCalls: [{ id: spec.call, name: 'lookup', arguments: { q: spec.call } }] }),
          Message.tool(spec.call, 'found it', { name: 'lookup' }),
        ]
      : [spec.kind === 'user' ? Message.user(spec.text) : Message.assistant(spec.text)],
  );
}

/** A look-alike of `session` with `fields` changed: `Session.is` refuses it, `instanceof` does not. */
function lookAlike(session: Session, fields: Readonly<Record<string, unknown>>): Session {
  return Object.freeze(Object.assign(Object.create(Session.prototype) as object, { ...session, ...fields })) as Session;
}

/** One run of the property: a fresh store, the sessions it holds, what the snapshots read. */
interface Run {
  store: SessionStore;
  /** The two users of the run's sessions. */
  readonly users: readonly [string, string];
  /** Sessions created and not removed since, in the order they were created, with their users. */
  readonly live: Array<{ readonly id: string; readonly userId: string }>;
  /** Every session id the run used, removed ones and missing targets included: each snapshot reads them all. */
  readonly seen: Set<string>;
  /** A good write was made since the handle was opened (see `settle`). */
  dirty: boolean;
  /** What the store read after the last refusal, when no good write came since: the next refusal's "before". */
  last: Snapshot | undefined;
}

/** Adds a session id to those each snapshot reads (the last snapshot, which does not read it, is dropped). */
function see(run: Run, id: string): void {
  run.seen.add(id);
  run.last = undefined;
}

/** A live session of the run, picked by `pick`; `undefined` when there is none. */
function target(run: Run, pick: number): string | undefined {
  return run.live.length === 0 ? undefined : run.live[pick % run.live.length]?.id;
}

/** The value owners the run writes to: the app, each user, an agent of each user, and every session it used. */
function owners(run: Run): ValueOwner[] {
  const [first, second] = run.users;
  return [
    { scope: 'app' },
    { scope: 'user', userId: first },
    { scope: 'user', userId: second },
    { scope: 'agent', agentId: 'helper', userId: first },
    { scope: 'agent', agentId: 'helper', userId: second },
    ...[...run.seen].sort().map((sessionId): ValueOwner => ({ scope: 'session', sessionId })),
  ];
}

/** A value owner the run writes to, picked by `pick`. */
function owner(run: Run, pick: number): ValueOwner {
  const all = owners(run);
  return all[pick % all.length] as ValueOwner;
}

/** What the API reads of the store: every row of `list`, every session the run used, its values, search hits of refused text. */
interface Snapshot {
  readonly rows: unknown;
  readonly sessions: Readonly<Record<string, string | undefined>>;
  readonly values: Readonly<Record<string, unknown>>;
  readonly hits: unknown;
}

/** What `store` reads of the run's data (see `Snapshot`). */
async function snapshot(spec: SpecScope, run: Run, store: SessionStore): Promise<Snapshot> {
  const rows = await store.list({ limit: 1000 });
  const ids = [...new Set([...run.seen, ...rows.map((row) => row.id)])].sort();
  // Read side by side: a store behind a network answers them over several connections.
  const sessions = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await store.getJson(id)] as const)));
  const values = spec.has('values')
    ? Object.fromEntries(
        await Promise.all(
          owners(run).map(async (each) => [JSON.stringify(each), await store.values.getAll(each)] as const),
        ),
      )
    : {};
  const search = store.searchText;
  const hits =
    search === undefined
      ? []
      : await Promise.all(
          [undefined, ...run.users].map((userId) =>
            search({ text: REFUSED_WORD, limit: 100, ...(userId === undefined ? {} : { userId }) }),
          ),
        );
  return { rows, sessions, values, hits };
}

/** A store's directory when the spec compares its bytes (it needs `reopen` too, see `settle`). */
function directoryOf(spec: SpecScope, store: SessionStore): string | undefined {
  return spec.has('directory') && spec.has('reopen') ? spec.directoryOf(store) : undefined;
}

/**
 * Before bytes are compared, the handle is closed and the data opened again when a good write was
 * made since it opened: closing waits for the store's background work (the file store folds a
 * journal into a new snapshot after an append), which would otherwise change bytes while a
 * refused call runs.
 */
async function settle(spec: SpecScope, run: Run): Promise<void> {
  if (!run.dirty || directoryOf(spec, run.store) === undefined) return;
  await run.store.close();
  run.store = await spec.reopen(run.store);
  run.dirty = false;
}

/** Makes a good write; it must succeed. */
async function applyGood(spec: SpecScope, run: Run, step: GoodStep): Promise<void> {
  const store = run.store;
  switch (step.good) {
    case 'create': {
      const userId = run.users[step.user % 2] as string;
      const id = freshId();
      await store.save(
        Session.create({
          id,
          userId,
          agentId: 'helper',
          messages: messagesOf(step.messages),
          metadata: { made: true },
        }),
        step.ttl ? { ttlMs: GOOD_TTL_MS } : {},
      );
      run.live.push({ id, userId });
      see(run, id);
      break;
    }
    case 'import at the bounds': {
      // The largest version and seq a caller may give are taken, and writes after them go on.
      const userId = run.users[step.user % 2] as string;
      const id = freshId();
      const made = Session.create({ id, userId, messages: [Message.user('imported', { seq: step.seq })] });
      await store.save(Session.fromJSON({ ...made.toJSON(), version: step.version }));
      run.live.push({ id, userId });
      see(run, id);
      break;
    }
    case 'save again': {
      const id = target(run, step.target);
      if (id === undefined) return;
      const loaded = await store.load(id);
      await store.save(loaded.append(...messagesOf(step.messages)).withMetadata({ note: step.note }), {
        expectedVersion: loaded.version,
      });
      break;
    }
    case 'append': {
      const id = target(run, step.target);
      if (id === undefined) return;
      await store.append(
        id,
        messagesOf(step.messages),
        step.state ? { state: { metadata: { appended: true }, variables: { turn: step.messages.length } } } : {},
      );
      break;
    }
    case 'set values': {
      if (!spec.has('values')) return;
      // fromEntries makes own keys: a "__proto__" key is a key to set or remove, never a prototype.
      const entries: Record<string, JsonValue | undefined> = Object.fromEntries([
        ...Object.entries(step.set),
        ...step.remove.map((key) => [key, undefined]),
      ]);
      await store.values.set(owner(run, step.owner), entries);
      break;
    }
    case 'delete': {
      const id = target(run, step.target);
      if (id === undefined) return;
      expect(await store.delete(id)).toBe(true);
      run.live.splice(
        run.live.findIndex((each) => each.id === id),
        1,
      );
      break;
    }
    case 'forget user': {
      const userId = run.users[step.user % 2] as string;
      await store.forgetUser(userId);
      for (let index = run.live.length - 1; index >= 0; index -= 1)
        if (run.live[index]?.userId === userId) run.live.splice(index, 1);
      break;
    }
    default: {
      const never: never = step;
      throw new Error(`unknown step ${JSON.stringify(never)}`);
    }
  }
  run.dirty = true;
  run.last = undefined;
}

/** A refused call: what it does, and the codes it may be refused with. */
interface Refusal {
  readonly call: (store: SessionStore) => Promise<unknown>;
  readonly codes: readonly ErrorCode[];
}

/** A version of session `id` that is not its current one: `offset` away, at least 0. */
async function staleVersion(store: SessionStore, id: string, offset: number): Promise<number> {
  const current = (await store.summary(id))?.version ?? 0;
  const stale = Math.max(0, current + offset);
  return stale === current ? current + 1 : stale;
}

/** A session to write in a bad call: the live one `pick` names with a message more, or a new one. */
async function sessionFor(run: Run, pick: number): Promise<Session> {
  const id = target(run, pick);
  const refused = Message.user(`${REFUSED_WORD} would be added`);
  if (id === undefined) {
    const fresh = freshId();
    see(run, fresh);
    return Session.create({ id: fresh, userId: run.users[0], messages: [refused] });
  }
  return (await run.store.load(id)).append(refused);
}

/** Builds the call of a bad write (reading what it needs first); `undefined` when it needs a live session and there is none. */
async function prepareBad(spec: SpecScope, run: Run, step: BadStep): Promise<Refusal | undefined> {
  const values = spec.has('values');
  const valueCodes = (codes: readonly ErrorCode[]): readonly ErrorCode[] => (values ? codes : UNSUPPORTED);
  const refusedMessages = [Message.user(`${REFUSED_WORD} never stored`)];
  switch (step.bad) {
    case 'save a look-alike session': {
      const session = lookAlike(await sessionFor(run, step.target), LOOK_ALIKE_FLAWS[step.flaw] ?? {});
      // keepUpdatedAt makes the store take the look-alike's own updatedAt.
      return { call: (store) => store.save(session, { keepUpdatedAt: true }), codes: ['INVALID_SESSION'] };
    }
    case 'save a hostile id': {
      const session = lookAlike(await sessionFor(run, 0), { id: step.id });
      return { call: (store) => store.save(session), codes: ['INVALID_ID'] };
    }
    case 'save a hostile owner': {
      const session = lookAlike(await sessionFor(run, 0), { [step.field]: step.owner });
      return { call: (store) => store.save(session), codes: ['INVALID_ID'] };
    }
    case 'save what is not a session': {
      const value = (NOT_SESSIONS[step.value] ?? (() => null))(await sessionFor(run, 0));
      return { call: (store) => store.save(value as Session), codes: ['INVALID_SESSION'] };
    }
    case 'save with a bad option': {
      const session = await sessionFor(run, step.target);
      const options = { [step.option]: step.value } as never;
      return { call: (store) => store.save(session, options), codes: ['INVALID_ARGUMENT'] };
    }
    case 'save at a stale version': {
      const session = await sessionFor(run, step.target);
      const live = target(run, step.target) !== undefined;
      // A session that does not exist is at version 0: any other expected version is stale.
      const expectedVersion = live ? await staleVersion(run.store, session.id, step.offset) : Math.abs(step.offset) + 1;
      return { call: (store) => store.save(session, { expectedVersion }), codes: ['CONFLICT'] };
    }
    case 'save a seq past MAX_SEQ': {
      const session = (await sessionFor(run, step.target)).append(
        Message.user(`${REFUSED_WORD} far ahead`, { seq: step.seq }),
      );
      return { call: (store) => store.save(session), codes: ['INVALID_ARGUMENT'] };
    }
    case 'save a version past MAX_VERSION': {
      const session = Session.fromJSON({ ...(await sessionFor(run, step.target)).toJSON(), version: step.version });
      return { call: (store) => store.save(session), codes: ['INVALID_ARGUMENT'] };
    }
    case 'append to a hostile id': {
      const id = step.id as string;
      return { call: (store) => store.append(id, refusedMessages), codes: ['INVALID_ID'] };
    }
    case 'append to a missing session': {
      const id = freshId();
      see(run, id);
      const messages = [...messagesOf(step.messages), ...refusedMessages];
      return { call: (store) => store.append(id, messages), codes: ['NOT_FOUND'] };
    }
    case 'append at a stale version': {
      const id = target(run, step.target);
      if (id === undefined) return undefined;
      const expectedVersion = await staleVersion(run.store, id, step.offset);
      return { call: (store) => store.append(id, refusedMessages, { expectedVersion }), codes: ['CONFLICT'] };
    }
    case 'append with a bad expectedVersion': {
      const id = target(run, step.target);
      if (id === undefined) return undefined;
      const options = { expectedVersion: step.value } as never;
      return { call: (store) => store.append(id, refusedMessages, options), codes: ['INVALID_ARGUMENT'] };
    }
    case 'append what is not an array': {
      const id = target(run, step.target);
      if (id === undefined) return undefined;
      const value = NOT_ARRAYS[step.value] as never;
      return { call: (store) => store.append(id, value), codes: ['INVALID_ARGUMENT'] };
    }
    case 'append an invalid message': {
      const id = target(run, step.target);
      if (id === undefined) return undefined;
      const flaw = MESSAGE_FLAWS[step.flaw] as Flawed;
      // Good messages around the bad one: none of them may be stored either.
      const around = (count: number, at: string): Message[] =>
        Array.from({ length: count }, (_, index) => Message.user(`${REFUSED_WORD} ${at} ${index}`));
      const messages = [...around(step.before, 'before'), flaw.make(), ...around(step.after, 'after')] as never;
      return { call: (store) => store.append(id, messages), codes: flaw.codes };
    }
    case 'append with bad state': {
      const id = target(run, step.target);
      if (id === undefined) return undefined;
      const flaw = STATE_FLAWS[step.flaw] as Flawed;
      const state = flaw.make() as never;
      return { call: (store) => store.append(id, refusedMessages, { state }), codes: flaw.codes };
    }
    case 'set values of a bad owner': {
      const bad = BAD_OWNERS[step.owner] as ValueOwner;
      return {
        call: (store) => store.values.set(bad, { [REFUSED_WORD]: 1 }),
        codes: valueCodes(['INVALID_ID', 'INVALID_ARGUMENT']),
      };
    }
    case 'set a bad value key': {
      const to = owner(run, step.owner);
      const entries = { a: REFUSED_WORD, [step.key]: REFUSED_WORD, z: REFUSED_WORD };
      return { call: (store) => store.values.set(to, entries), codes: valueCodes(['INVALID_ARGUMENT']) };
    }
    case 'set a bad value': {
      const to = owner(run, step.owner);
      const value =
        step.value === TOO_LARGE_VALUE ? `${REFUSED_WORD}${'x'.repeat(MAX_VALUE_BYTES)}` : hostileValue(step.value);
      // The bad value between good ones: one bad entry writes none.
      const entries = { a: REFUSED_WORD, bad: value, z: REFUSED_WORD } as never;
      return {
        call: (store) => store.values.set(to, entries),
        codes: valueCodes(step.value === TOO_LARGE_VALUE ? ['TOO_LARGE'] : ['INVALID_ARGUMENT']),
      };
    }
    case 'set values that are not entries': {
      const to = owner(run, step.owner);
      const entries = NOT_ENTRIES[step.value] as never;
      return { call: (store) => store.values.set(to, entries), codes: valueCodes(['INVALID_ARGUMENT']) };
    }
    case 'delete a hostile id': {
      const id = step.id as string;
      return { call: (store) => store.delete(id), codes: ['INVALID_ID'] };
    }
    case 'forget a hostile user id': {
      const id = step.id as string;
      return { call: (store) => store.forgetUser(id), codes: ['INVALID_ID'] };
    }
    default: {
      const never: never = step;
      throw new Error(`unknown step ${JSON.stringify(never)}`);
    }
  }
}

/** Makes a bad write and checks that it is refused with a typed error of its codes, and that nothing changed. */
async function refuse(spec: SpecScope, run: Run, step: BadStep): Promise<void> {
  await settle(spec, run);
  const refusal = await prepareBad(spec, run, step);
  if (refusal === undefined) return;
  const store = run.store;
  const directory = directoryOf(spec, store);
  const before = run.last ?? (await snapshot(spec, run, store));
  const bytesBefore = directory === undefined ? undefined : fileDigests(directory);
  let failure: unknown;
  let refused = false;
  try {
    await refusal.call(store);
  } catch (error) {
    refused = true;
    failure = error;
  }
  // Bytes first: the snapshot's own reads may write derived files (the file store's list index).
  const bytesAfter = directory === undefined ? undefined : fileDigests(directory);
  const label = `${step.bad}: ${JSON.stringify(step)}`;
  if (!refused) throw new Error(`${label}: the store took a write it must refuse`);
  if (!ChatstateError.isInstance(failure))
    throw new Error(`${label}: refused with ${String(failure)}, not a ChatstateError`, { cause: failure });
  expect(refusal.codes, `${label}: refused with ${failure.code} (${failure.message})`).toContain(failure.code);
  expect(bytesAfter, `${label}: files changed`).toEqual(bytesBefore);
  const after = await snapshot(spec, run, store);
  expect(after, `${label}: what the store reads changed`).toEqual(before);
  run.last = after;
}

/** Ids no store takes as a session id: hostile paths and names, non-strings, and random strings outside the id pattern. */
function hostileIdArb(fc: typeof FastCheck): FastCheck.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      '',
      '.',
      '..',
      '../escape',
      'a/b',
      'a\\b',
      ' lead',
      'a b',
      'x'.repeat(129),
      'nul\u0000',
      42,
      null,
      {},
    ),
    // UTF-16 code units, lone surrogates included (fast-check's 'binary' unit takes seconds to build).
    fc
      .string({ unit: fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 140 })
      .filter((id) => !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)),
  );
}

/** Ids that are no user or agent id: empty, too long, not well-formed Unicode, not strings. */
function hostileOwnerArb(fc: typeof FastCheck): FastCheck.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>('', 'u'.repeat(257), '\ud800', 'a\udc00b', 'end\ud83d', 42, null),
    fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\ud800${b}`),
  );
}

/** The steps of one run: good and bad writes mixed, bad ones more often. */
function stepsArb(fc: typeof FastCheck): FastCheck.Arbitrary<Step[]> {
  const pick = fc.nat({ max: 20 });
  const text = fc.string({ minLength: 1, maxLength: 30 }).filter((value) => value.trim().length > 0);
  const message: FastCheck.Arbitrary<GoodMessage> = fc.oneof(
    fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const), text }),
    fc.record({ kind: fc.constant('tool pair' as const), call: fc.stringMatching(/^call_[a-z0-9]{1,12}$/) }),
  );
  const messages = fc.array(message, { minLength: 1, maxLength: 3 });
  const user = fc.nat({ max: 1 });
  const offset = fc.integer({ min: -3, max: 5 }).filter((value) => value !== 0);
  const valueKey = fc.constantFrom('a', 'b', 'c', '__proto__', 'embed/x/3/0');
  const good: FastCheck.Arbitrary<GoodStep> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ good: fc.constant('create' as const), user, messages, ttl: fc.boolean() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        good: fc.constant('import at the bounds' as const),
        user,
        version: fc.constantFrom(1, 7, MAX_VERSION),
        seq: fc.constantFrom(1, 9, MAX_SEQ),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ good: fc.constant('save again' as const), target: pick, messages, note: text }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ good: fc.constant('append' as const), target: pick, messages, state: fc.boolean() }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        good: fc.constant('set values' as const),
        owner: pick,
        set: fc.dictionary(valueKey, fc.jsonValue({ maxDepth: 3 }) as FastCheck.Arbitrary<JsonValue>, { maxKeys: 3 }),
        remove: fc.array(valueKey, { maxLength: 2 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ good: fc.constant('delete' as const), target: pick }) },
    { weight: 1, arbitrary: fc.record({ good: fc.constant('forget user' as const), user }) },
  );
  const badNumber = (extra: readonly unknown[]): FastCheck.Arbitrary<unknown> =>
    fc.oneof(
      fc.integer({ max: -1 }),
      fc.double({ noInteger: true, noNaN: true }),
      fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '1', true, ...extra),
    );
  const saveOption = fc.oneof(
    fc.record({ option: fc.constant('expectedVersion'), value: badNumber([2 ** 53, null]) }),
    fc.record({
      option: fc.constant('ttlMs'),
      value: fc.oneof(badNumber([0, 2 ** 53]), fc.integer({ min: MAX_TTL_MS + 1, max: Number.MAX_SAFE_INTEGER })),
    }),
    fc.record({ option: fc.constant('keepUpdatedAt'), value: fc.constantFrom<unknown>('yes', 1, 0, null, {}) }),
  );
  const keys = (table: Readonly<Record<string, unknown>>): FastCheck.Arbitrary<string> =>
    fc.constantFrom(...Object.keys(table));
  const badKey = fc.oneof(
    fc.constantFrom(
      '',
      'k'.repeat(MAX_VALUE_KEY_CHARS + 1),
      'a\nb',
      'tab\there',
      'nul\u0000',
      'c1\u0085',
      'lone\ud800',
    ),
    fc
      .tuple(
        fc.string({ maxLength: 8 }),
        fc.constantFrom('\n', '\u0000', '\u007f', '\u009f', '\ud800'),
        fc.string({ maxLength: 8 }),
      )
      .map(([a, bad, b]) => `${a}${bad}${b}`),
  );
  const bad: FastCheck.Arbitrary<BadStep> = fc.oneof(
    fc.record({ bad: fc.constant('save a look-alike session' as const), target: pick, flaw: keys(LOOK_ALIKE_FLAWS) }),
    fc.record({ bad: fc.constant('save a hostile id' as const), id: hostileIdArb(fc) }),
    fc.record({
      bad: fc.constant('save a hostile owner' as const),
      field: fc.constantFrom('userId' as const, 'agentId' as const),
      owner: hostileOwnerArb(fc),
    }),
    fc.record({ bad: fc.constant('save what is not a session' as const), value: keys(NOT_SESSIONS) }),
    saveOption.chain(({ option, value }) =>
      fc.record({
        bad: fc.constant('save with a bad option' as const),
        target: pick,
        option: fc.constant(option),
        value: fc.constant(value),
      }),
    ),
    fc.record({ bad: fc.constant('save at a stale version' as const), target: pick, offset }),
    fc.record({
      bad: fc.constant('save a seq past MAX_SEQ' as const),
      target: pick,
      seq: fc.integer({ min: MAX_SEQ + FAR, max: Number.MAX_SAFE_INTEGER }),
    }),
    fc.record({
      bad: fc.constant('save a version past MAX_VERSION' as const),
      target: pick,
      version: fc.integer({ min: MAX_VERSION + FAR, max: Number.MAX_SAFE_INTEGER }),
    }),
    fc.record({ bad: fc.constant('append to a hostile id' as const), id: hostileIdArb(fc) }),
    fc.record({ bad: fc.constant('append to a missing session' as const), messages }),
    fc.record({ bad: fc.constant('append at a stale version' as const), target: pick, offset }),
    fc.record({
      bad: fc.constant('append with a bad expectedVersion' as const),
      target: pick,
      value: badNumber([2 ** 53, null]),
    }),
    fc.record({ bad: fc.constant('append what is not an array' as const), target: pick, value: keys(NOT_ARRAYS) }),
    fc.record({
      bad: fc.constant('append an invalid message' as const),
      target: pick,
      before: fc.nat({ max: 2 }),
      flaw: keys(MESSAGE_FLAWS),
      after: fc.nat({ max: 2 }),
    }),
    fc.record({ bad: fc.constant('append with bad state' as const), target: pick, flaw: keys(STATE_FLAWS) }),
    fc.record({ bad: fc.constant('set values of a bad owner' as const), owner: keys(BAD_OWNERS) }),
    fc.record({ bad: fc.constant('set a bad value key' as const), owner: pick, key: badKey }),
    fc.record({
      bad: fc.constant('set a bad value' as const),
      owner: pick,
      value: fc.constantFrom(TOO_LARGE_VALUE, ...hostileValues().map(([name]) => name)),
    }),
    fc.record({ bad: fc.constant('set values that are not entries' as const), owner: pick, value: keys(NOT_ENTRIES) }),
    fc.record({ bad: fc.constant('delete a hostile id' as const), id: hostileIdArb(fc) }),
    fc.record({ bad: fc.constant('forget a hostile user id' as const), id: hostileOwnerArb(fc) }),
  );
  const first = fc.record({ good: fc.constant('create' as const), user, messages, ttl: fc.boolean() });
  return fc
    .tuple(
      first,
      fc.array(fc.oneof({ weight: 2, arbitrary: good }, { weight: 3, arbitrary: bad }), {
        minLength: MIN_STEPS - 1,
        maxLength: MAX_STEPS - 1,
      }),
    )
    .map(([start, rest]): Step[] => [start, ...rest]);
}

/** Runs `steps` on a fresh store; then a second handle must read what this one reads. */
async function runSteps(spec: SpecScope, steps: readonly Step[]): Promise<void> {
  const run: Run = {
    store: await spec.open(),
    users: ['user-a', 'user-b'],
    live: [],
    seen: new Set(),
    dirty: false,
    last: undefined,
  };
  let second: SessionStore | undefined;
  try {
    for (const step of steps) {
      if ('good' in step) await applyGood(spec, run, step);
      else await refuse(spec, run, step);
    }
    // Nothing a refusal did may live only in this process (a cache the stored data disagrees with).
    if (spec.has('reopen')) {
      second = await spec.reopen(run.store);
      expect(await snapshot(spec, run, second), 'a second handle reads other data').toEqual(
        await snapshot(spec, run, run.store),
      );
    }
  } finally {
    // Each run's stores are closed now: a hundred runs' connections must not stay open until the test ends.
    await second?.close();
    await run.store.close();
  }
}

/** Asserts that `run` is refused with `code`, naming `what` when it is not. */
async function expectRefused(what: string, run: () => Promise<unknown>, code: ErrorCode): Promise<void> {
  await expectCode(run, code).catch((failure: unknown) => {
    throw new Error(`${what}: ${errorMessage(failure)}`, { cause: failure });
  });
}

/** Registers the refused-writes spec. */
export function refusedWritesSpec(suite: ConformanceSuite): void {
  suite.describe('refused-writes', 'a refused write leaves the store as it was', (spec) => {
    // Found by the property: a look-alike's fields were written, then refused when read back (a
    // createdAt that is no date left the session unreadable; a NaN version wrote a journal entry
    // and failed with a plain Error).
    spec.it(
      'a look-alike session is refused with INVALID_SESSION before anything is written; what was stored still reads and takes appends',
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId(), messages: [Message.user('hello')] }));
        const fresh = Session.create({ id: freshId(), messages: [Message.user('new')] });
        const before = await store.getJson(saved.id);
        for (const [flaw, fields] of Object.entries(LOOK_ALIKE_FLAWS)) {
          for (const base of [saved.append(Message.user('more')), fresh]) {
            const session = lookAlike(base, fields);
            await expectRefused(
              `a look-alike with ${flaw}`,
              () => store.save(session, { keepUpdatedAt: true }),
              'INVALID_SESSION',
            );
          }
        }
        expect(await store.getJson(saved.id)).toBe(before);
        expect(await store.get(fresh.id)).toBeUndefined();
        expect((await store.list()).map((row) => row.id)).toEqual([saved.id]);
        await store.append(saved.id, [Message.user('after them')]);
        expect((await store.load(saved.id)).messages.map((message) => message.seq)).toEqual([1, 2]);
      },
    );

    // Found by the property: a version of 2^53 − 1 was taken, and the next append made it 2^53,
    // which no read accepts (the session was lost to every reader).
    spec.it(
      'a version past MAX_VERSION is refused before anything is written; MAX_VERSION itself goes on, through appends and saves of what was read',
      async () => {
        const store = await spec.open();
        const id = freshId();
        const made = Session.create({ id, messages: [Message.user('imported')] }).toJSON();
        for (const version of [MAX_VERSION + MAX_VERSION_STEP + 1, Number.MAX_SAFE_INTEGER]) {
          const session = Session.fromJSON({ ...made, version });
          await expectRefused(`version ${version}`, () => store.save(session), 'INVALID_ARGUMENT');
        }
        expect(await store.get(id)).toBeUndefined();
        expect((await store.save(Session.fromJSON({ ...made, version: MAX_VERSION }))).version).toBe(MAX_VERSION);
        expect((await store.append(id, [Message.user('after it')])).version).toBe(MAX_VERSION + 1);
        // A session read and changed twice in memory is saved as usual, at its own version.
        const read = await store.load(id);
        const changed = read.append(Message.user('one')).append(Message.user('two'));
        expect((await store.save(changed, { expectedVersion: read.version })).version).toBe(MAX_VERSION + 3);
        expect((await store.load(id)).version).toBe(MAX_VERSION + 3);
        const far = Session.fromJSON({ ...changed.toJSON(), version: MAX_VERSION + 4 + MAX_VERSION_STEP });
        await expectRefused('a version far past the stored one', () => store.save(far), 'INVALID_ARGUMENT');
        expect((await store.load(id)).version).toBe(MAX_VERSION + 3);
      },
    );

    spec.it(
      'random bad saves, appends, value writes, deletes and forgets among good writes: each is refused with a typed error of its codes, and nothing the API reads nor any byte of its files changed',
      async () => {
        if (!('fc' in fastCheck)) throw new Error(fastCheck.missing);
        const { fc } = fastCheck;
        await fc.assert(
          fc.asyncProperty(stepsArb(fc), (steps) => runSteps(spec, steps)),
          { numRuns: RUNS },
        );
      },
      { timeoutMs: 120_000, ...('missing' in fastCheck ? { unavailable: fastCheck.missing } : {}) },
    );
  });
}
