/**
 * Active memory's values (`store.values`): JSON values by owner and key that round trip, stay
 * with their owner whatever its id, are written all at once, survive a reopen, go with their
 * session, and are sealed at rest with the store's key.
 * @module
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { JsonValue } from '../../message/schema.js';
import { Session } from '../../session/session.js';
import type { StateKeyRing } from '../../state/types.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { FakeClock, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const RING: StateKeyRing = { current: 'k1', keys: { k1: 'conformance-values-secret-0123456789' } };
/** A word stored in a value that must not appear in the store's files when it is encrypted. */
const MARKER = 'valuemarkerqz';
const SAMPLE: Record<string, JsonValue> = {
  number: -12.5,
  text: 'café ☕ 𝄞',
  nothing: null,
  flag: false,
  list: [1, 'two', { three: [3] }],
  object: { nested: { deep: true }, empty: {} },
};

/** One owner of every scope (the session one needs a session id). */
function owners(sessionId: string): ValueOwner[] {
  return [
    { scope: 'user', userId: 'user-ann' },
    { scope: 'agent', agentId: 'agent-x', userId: 'user-ann' },
    { scope: 'app' },
    { scope: 'session', sessionId },
  ];
}

/** Every file under `root`, recursively. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

async function sessionWithValues(store: SessionStore, ttlMs?: number): Promise<Session> {
  const session = await store.save(Session.create({ id: freshId() }), ttlMs === undefined ? {} : { ttlMs });
  await store.values.set({ scope: 'session', sessionId: session.id }, { note: session.id, other: [1] });
  return session;
}

/** Tests of a store that declares the values capability. */
const VALUES = { needs: ['values'] } as const;

/** Registers the values spec. */
export function valuesSpec(suite: ConformanceSuite): void {
  suite.describe('values', "active memory's values", (spec) => {
    spec.it(
      'without the values capability, every value operation is refused with UNSUPPORTED naming the store and the capability',
      async () => {
        const store = await spec.open();
        const calls: Record<string, () => Promise<unknown>> = {
          get: () => store.values.get({ scope: 'app' }, 'k'),
          getAll: () => store.values.getAll({ scope: 'user', userId: 'u' }),
          set: () => store.values.set({ scope: 'app' }, { k: 1 }),
          // Refused before the input is looked at: nothing about the call could make it work.
          'set (bad owner)': () => store.values.set({ scope: 'nowhere' } as unknown as ValueOwner, { k: 1 }),
        };
        for (const [method, call] of Object.entries(calls)) {
          const error = await expectCode(call, 'UNSUPPORTED');
          expect(error.message, method).toContain(store.name);
          expect(error.details, method).toMatchObject({ store: store.name, capability: 'values' });
        }
        // Sessions are untouched by it: the store works without values.
        const saved = await store.save(Session.create({ id: freshId() }));
        expect((await store.load(saved.id)).id).toBe(saved.id);
      },
      { needs: ['noValues'] },
    );

    spec.it(
      'every scope round trips JSON values; getAll lists its keys ascending',
      async () => {
        const store = await spec.open();
        for (const owner of owners(freshId())) {
          expect(await store.values.getAll(owner)).toEqual({});
          expect(await store.values.get(owner, 'number')).toBeUndefined();
          await store.values.set(owner, SAMPLE);
          for (const [key, value] of Object.entries(SAMPLE)) expect(await store.values.get(owner, key)).toEqual(value);
          const all = await store.values.getAll(owner);
          expect(all).toEqual(SAMPLE);
          expect(Object.keys(all)).toEqual(Object.keys(SAMPLE).sort());
          await store.values.set(owner, { number: 7 });
          expect(await store.values.get(owner, 'number')).toBe(7);
        }
      },
      VALUES,
    );

    spec.it(
      'keys are plain data: "__proto__", "constructor", "a/../b" and unicode keys round trip as own keys',
      async () => {
        const store = await spec.open();
        const owner: ValueOwner = { scope: 'user', userId: 'user-keys' };
        const entries = JSON.parse(
          '{"__proto__": {"polluted": true}, "constructor": 1, "a/../b": 2, "ключ 🔑": 3, "user:other": 4}',
        ) as Record<string, JsonValue>;
        await store.values.set(owner, entries);
        const all = await store.values.getAll(owner);
        expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
        expect(Object.keys(all).sort()).toEqual(Object.keys(entries).sort());
        expect(await store.values.get(owner, '__proto__')).toEqual({ polluted: true });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(await store.values.getAll({ scope: 'user', userId: 'other' })).toEqual({});
      },
      VALUES,
    );

    spec.it(
      "one owner never reads another's values, whatever their ids",
      async () => {
        const store = await spec.open();
        const sessionId = freshId();
        // Pairs whose naive concatenations would meet, and ids shaped like paths, keys and prototypes.
        const distinct: ValueOwner[] = [
          { scope: 'user', userId: 'ann' },
          { scope: 'user', userId: 'bob' },
          { scope: 'user', userId: '../x' },
          { scope: 'user', userId: 'a:b' },
          { scope: 'user', userId: 'a%003ab' },
          { scope: 'user', userId: '__proto__' },
          { scope: 'user', userId: `session:${sessionId}` },
          { scope: 'user', userId: 'ann/user:bob' },
          { scope: 'agent', agentId: 'x', userId: 'ann' },
          { scope: 'agent', agentId: 'x', userId: 'bob' },
          { scope: 'agent', agentId: 'y', userId: 'ann' },
          { scope: 'agent', agentId: 'x/user:ann', userId: 'bob' },
          { scope: 'agent', agentId: 'x', userId: 'ann/user:bob' },
          { scope: 'agent', agentId: 'ann', userId: 'ann' },
          { scope: 'app' },
          { scope: 'session', sessionId },
        ];
        await Promise.all(
          distinct.map((owner, index) => store.values.set(owner, { secret: index, [`only-${index}`]: true })),
        );
        for (const [index, owner] of distinct.entries()) {
          expect(await store.values.get(owner, 'secret')).toBe(index);
          expect(await store.values.getAll(owner)).toEqual({ secret: index, [`only-${index}`]: true });
        }
      },
      VALUES,
    );

    spec.it(
      'a key set to undefined is deleted; the other keys stay',
      async () => {
        const store = await spec.open();
        const owner: ValueOwner = { scope: 'agent', agentId: 'agent-d', userId: 'user-d' };
        await store.values.set(owner, { a: 1, b: 2, c: 3 });
        await store.values.set(owner, { a: undefined, c: 30, missing: undefined });
        expect(await store.values.get(owner, 'a')).toBeUndefined();
        expect(await store.values.getAll(owner)).toEqual({ b: 2, c: 30 });
        await store.values.set(owner, { b: undefined, c: undefined });
        expect(await store.values.getAll(owner)).toEqual({});
        await store.values.set(owner, {});
        expect(await store.values.getAll(owner)).toEqual({});
      },
      VALUES,
    );

    spec.it(
      'a set writes all of its keys or none of them',
      async () => {
        const store = await spec.open();
        const owner: ValueOwner = { scope: 'user', userId: 'user-atomic' };
        await store.values.set(owner, { x: 0, y: 0 });
        await expectCode(
          () => store.values.set(owner, { x: 1, y: (() => 1) as unknown as JsonValue }),
          'INVALID_ARGUMENT',
        );
        await expectCode(() => store.values.set(owner, { x: 1, y: 'y'.repeat(1 << 20) }), 'TOO_LARGE');
        await expectCode(() => store.values.set(owner, { x: 1, '': 1 }), 'INVALID_ARGUMENT');
        expect(await store.values.getAll(owner)).toEqual({ x: 0, y: 0 });
        // Readers racing the writers only ever see pairs written together.
        const writes = Array.from({ length: 40 }, (_, index) =>
          store.values.set(owner, { x: index + 1, y: index + 1 }),
        );
        const reads = Array.from({ length: 40 }, () => store.values.getAll(owner));
        for (const seen of await Promise.all(reads)) expect(seen.x).toBe(seen.y);
        await Promise.all(writes);
        const last = await store.values.getAll(owner);
        expect(last.x).toBe(last.y);
      },
      VALUES,
    );

    spec.it(
      'two handles writing different keys of one owner at once lose nothing',
      async () => {
        const store = await spec.open();
        const other = await spec.reopen(store);
        const owner: ValueOwner = { scope: 'app' };
        await Promise.all([
          ...Array.from({ length: 25 }, (_, index) => store.values.set(owner, { [`a${index}`]: index })),
          ...Array.from({ length: 25 }, (_, index) => other.values.set(owner, { [`b${index}`]: index })),
        ]);
        const all = await store.values.getAll(owner);
        expect(Object.keys(all)).toHaveLength(50);
        expect(await other.values.getAll(owner)).toEqual(all);
      },
      { needs: ['values', 'reopen'] },
    );

    spec.it(
      'values survive a reopen',
      async () => {
        const store = await spec.open();
        const sessionId = freshId();
        for (const owner of owners(sessionId)) await store.values.set(owner, { kept: owner.scope });
        const reopened = await spec.reopen(store);
        for (const owner of owners(sessionId))
          expect(await reopened.values.getAll(owner)).toEqual({ kept: owner.scope });
      },
      { needs: ['values', 'reopen'] },
    );

    spec.it(
      "deleting a session deletes its values, and nobody else's",
      async () => {
        const store = await spec.open();
        const removed = await sessionWithValues(store);
        const kept = await sessionWithValues(store);
        await store.values.set({ scope: 'user', userId: 'user-keep' }, { stays: true });
        expect(await store.delete(removed.id)).toBe(true);
        expect(await store.values.getAll({ scope: 'session', sessionId: removed.id })).toEqual({});
        expect(await store.values.getAll({ scope: 'session', sessionId: kept.id })).toEqual({
          note: kept.id,
          other: [1],
        });
        expect(await store.values.get({ scope: 'user', userId: 'user-keep' }, 'stays')).toBe(true);
        // A session created again under the same id starts without values.
        await store.save(Session.create({ id: removed.id }), { expectedVersion: 0 });
        expect(await store.values.getAll({ scope: 'session', sessionId: removed.id })).toEqual({});
      },
      VALUES,
    );

    spec.it(
      'purgeExpired deletes the values of the sessions it removes',
      async () => {
        const clock = new FakeClock();
        const store = await spec.open({ now: clock.now });
        const expiring = await sessionWithValues(store, 60_000);
        const lasting = await sessionWithValues(store);
        clock.advance(60_000);
        expect(await store.purgeExpired()).toBe(1);
        expect(await store.values.getAll({ scope: 'session', sessionId: expiring.id })).toEqual({});
        expect(await store.values.getAll({ scope: 'session', sessionId: lasting.id })).toEqual({
          note: lasting.id,
          other: [1],
        });
      },
      VALUES,
    );

    spec.it(
      'bad owners, keys and values are refused with typed errors',
      async () => {
        const store = await spec.open();
        const user: ValueOwner = { scope: 'user', userId: 'user-bad' };
        await expectCode(() => store.values.get({ scope: 'session', sessionId: '../x' }, 'k'), 'INVALID_ID');
        await expectCode(() => store.values.set({ scope: 'session', sessionId: '__proto__' }, { k: 1 }), 'INVALID_ID');
        await expectCode(() => store.values.getAll({ scope: 'user', userId: '' }), 'INVALID_ID');
        await expectCode(() => store.values.getAll({ scope: 'user', userId: 'u'.repeat(257) }), 'INVALID_ID');
        await expectCode(
          () => store.values.getAll({ scope: 'agent', agentId: 'a' } as unknown as ValueOwner),
          'INVALID_ID',
        );
        await expectCode(() => store.values.getAll({ scope: 'everyone' } as unknown as ValueOwner), 'INVALID_ARGUMENT');
        for (const key of ['', 'k'.repeat(257), 'line\nbreak', 'nul\u0000', 'half\uD800']) {
          await expectCode(() => store.values.get(user, key), 'INVALID_ARGUMENT');
          await expectCode(() => store.values.set(user, { [key]: 1 }), 'INVALID_ARGUMENT');
        }
        for (const value of [Number.NaN, Number.POSITIVE_INFINITY, { at: new Date(0) }, [undefined], 10n]) {
          await expectCode(() => store.values.set(user, { k: value as unknown as JsonValue }), 'INVALID_ARGUMENT');
        }
        await expectCode(
          () => store.values.set(user, null as unknown as Record<string, JsonValue>),
          'INVALID_ARGUMENT',
        );
        await expectCode(() => store.values.set(user, [1] as unknown as Record<string, JsonValue>), 'INVALID_ARGUMENT');
        expect(await store.values.getAll(user)).toEqual({});
        // The largest value that fits is accepted.
        await store.values.set(user, { big: 'b'.repeat((1 << 20) - 2) });
        expect(((await store.values.get(user, 'big')) as string).length).toBe((1 << 20) - 2);
      },
      VALUES,
    );

    spec.it(
      'values read back are copies: changing one changes nothing stored',
      async () => {
        const store = await spec.open();
        const owner: ValueOwner = { scope: 'app' };
        await store.values.set(owner, { list: [1, 2] });
        const read = (await store.values.get(owner, 'list')) as number[];
        read.push(3);
        (await store.values.getAll(owner)).list = 'replaced';
        expect(await store.values.get(owner, 'list')).toEqual([1, 2]);
      },
      VALUES,
    );

    spec.it(
      'with a key, values round trip; without it, or with another, reads fail with CORRUPT',
      async () => {
        const store = await spec.open({ encryption: RING });
        const owner: ValueOwner = { scope: 'user', userId: 'user-sealed' };
        await store.values.set(owner, { secret: MARKER, list: [MARKER] });
        expect(await store.values.getAll(owner)).toEqual({ list: [MARKER], secret: MARKER });
        const keyless = await spec.reopen(store);
        await expectCode(() => keyless.values.get(owner, 'secret'), 'CORRUPT');
        await expectCode(() => keyless.values.getAll(owner), 'CORRUPT');
        const wrong = await spec.reopen(store, {
          encryption: { current: 'k1', keys: { k1: 'another-secret-of-enough-length-42' } },
        });
        await expectCode(() => wrong.values.get(owner, 'secret'), 'CORRUPT');
        const same = await spec.reopen(store, { encryption: RING });
        expect(await same.values.get(owner, 'secret')).toBe(MARKER);
      },
      { needs: ['values', 'reopen'] },
    );

    spec.it(
      'with a key, no value reaches the store directory in the clear',
      async () => {
        const store = await spec.open({ encryption: RING });
        const session = await store.save(Session.create({ id: freshId() }));
        for (const owner of owners(session.id)) await store.values.set(owner, { kept: `${MARKER} of ${owner.scope}` });
        await store.close();
        expect(filesUnder(spec.directoryOf(store)).filter((file) => readFileSync(file).includes(MARKER))).toEqual([]);
      },
      { needs: ['values', 'directory'] },
    );

    spec.it(
      'a sealed value changed on disk fails with CORRUPT',
      async () => {
        const store = await spec.open({ encryption: RING });
        const owner: ValueOwner = { scope: 'user', userId: 'user-tampered' };
        await store.values.set(owner, { secret: MARKER });
        await store.close();
        let changed = 0;
        for (const file of filesUnder(spec.directoryOf(store))) {
          const text = readFileSync(file).toString('latin1');
          // Flip one character of each envelope's ciphertext: same length, so the file stays well formed.
          const tampered = text.replace(
            /(e1\.k1\.[A-Za-z0-9_-]+\.)([A-Za-z0-9_-])/g,
            (_match, head: string, first: string) => {
              changed += 1;
              return `${head}${first === 'A' ? 'B' : 'A'}`;
            },
          );
          if (tampered !== text) writeFileSync(file, Buffer.from(tampered, 'latin1'));
        }
        expect(changed).toBeGreaterThan(0);
        const reopened = await spec.reopen(store, { encryption: RING });
        await expectCode(() => reopened.values.get(owner, 'secret'), 'CORRUPT');
      },
      { needs: ['values', 'directory', 'reopen'] },
    );
  });
}
