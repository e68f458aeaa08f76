/** `store` / `get` in every scope: where values live, how long, and what is refused. */
import { expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import type { Scope } from '../../src/active-memory/types.js';
import { InvalidInputError } from '../../src/errors.js';
import type { JsonValue } from '../../src/message/schema.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { expectRejection, seedSession, type Stores } from './harness.js';

const SCOPES: readonly Scope[] = ['session', 'user', 'agent', 'app', 'temp'];

/** Registers the scoped-value tests. */
export function valuesSpec(stores: Stores): void {
  it('keeps a value per scope, each scope apart, and deletes with undefined', async () => {
    const store = await stores.open();
    await seedSession(store, 'scoped', 'u1', ['hello']);
    const handle = createSessionHandle({ store, sessionId: 'scoped', userId: 'u1', agentId: 'planner' });
    for (const scope of SCOPES) await handle.store('color', { scope, n: [1, 2] }, { scope });
    for (const scope of SCOPES) expect(await handle.get('color', { scope })).toEqual({ scope, n: [1, 2] });
    // `session` is the default scope, and session values are the session's variables.
    expect(await handle.get('color')).toEqual({ scope: 'session', n: [1, 2] });
    expect((await store.load('scoped')).variables.color).toEqual({ scope: 'session', n: [1, 2] });
    expect(await store.values.get({ scope: 'agent', agentId: 'planner', userId: 'u1' }, 'color')).toEqual({
      scope: 'agent',
      n: [1, 2],
    });
    for (const scope of SCOPES) await handle.store('color', undefined, { scope });
    for (const scope of SCOPES) expect(await handle.get('color', { scope, default: 'none' })).toBe('none');
  });

  it('returns frozen values, so a caller cannot change a stored one in place', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'frozen', userId: 'u1' });
    for (const scope of SCOPES.filter((each) => each !== 'agent')) {
      await handle.store('list', [1, { a: 2 }], { scope });
      const value = (await handle.get('list', { scope })) as JsonValue[];
      expect(Object.isFrozen(value) && Object.isFrozen(value[1])).toBe(true);
    }
  });

  it('stores session values in a session that does not exist yet, owned by the handle user', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'fresh', userId: 'u1', agentId: 'a1' });
    await handle.store('step', 3);
    const stored = await store.load('fresh');
    expect(stored.variables.step).toBe(3);
    expect([stored.userId, stored.agentId]).toEqual(['u1', 'a1']);
  });

  it('applies a session value over a concurrent save (one retry on CONFLICT) and loses neither', async () => {
    const store = await stores.open();
    await seedSession(store, 'raced', undefined, ['hi']);
    let raced = false;
    // The first save of the handle finds that another writer saved first, as two processes would.
    const racing: SessionStore = Object.create(store, {
      save: {
        value: async (...args: Parameters<SessionStore['save']>) => {
          if (!raced) {
            raced = true;
            const other = await store.load('raced');
            await store.save(other.withVariable('theirs', true), { expectedVersion: other.version });
          }
          return store.save(...args);
        },
      },
    }) as SessionStore;
    await createSessionHandle({ store: racing, sessionId: 'raced' }).store('mine', true);
    expect(raced).toBe(true);
    expect((await store.load('raced')).variables).toEqual({ theirs: true, mine: true });
  });

  it('values survive a restart of the store, in every durable scope', async () => {
    const store = await stores.open();
    await seedSession(store, 'kept', 'u1', ['hello']);
    const before = createSessionHandle({ store, sessionId: 'kept', userId: 'u1', agentId: 'a1' });
    for (const scope of ['session', 'user', 'agent', 'app'] as const)
      await before.store('k', `${scope} value`, { scope });
    await before.store('k', 'temp value', { scope: 'temp' });
    const reopened = await stores.reopen(store);
    const after = createSessionHandle({ store: reopened, sessionId: 'kept', userId: 'u1', agentId: 'a1' });
    for (const scope of ['session', 'user', 'agent', 'app'] as const)
      expect(await after.get('k', { scope })).toBe(`${scope} value`);
    // temp is this turn's only: a new handle starts empty.
    expect(await after.get('k', { scope: 'temp' })).toBeUndefined();
  });

  it('refuses the user and agent scopes without a user, and the agent scope without an agent', async () => {
    const store = await stores.open();
    const anonymous = createSessionHandle({ store, sessionId: 'anon', agentId: 'a1' });
    for (const scope of ['user', 'agent'] as const) {
      await expectRejection(anonymous.store('k', 1, { scope }), InvalidInputError, 'INVALID_ARGUMENT');
      await expectRejection(anonymous.get('k', { scope }), InvalidInputError, 'INVALID_ARGUMENT');
    }
    const agentless = createSessionHandle({ store, sessionId: 'anon', userId: 'u1' });
    await expectRejection(agentless.store('k', 1, { scope: 'agent' }), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(
      anonymous.store('k', 1, { scope: 'everyone' as Scope }),
      InvalidInputError,
      'INVALID_ARGUMENT',
    );
  });

  it('refuses hostile and malformed keys in every scope', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'keys', userId: 'u1', agentId: 'a1' });
    const bad: unknown[] = [
      '',
      'k'.repeat(257),
      '__proto__',
      'constructor',
      'prototype',
      'line\nbreak',
      'half \uD800 pair',
      42,
      null,
    ];
    for (const scope of SCOPES) {
      for (const key of bad) {
        await expectRejection(handle.store(key as string, 1, { scope }), InvalidInputError, 'INVALID_ARGUMENT');
        await expectRejection(handle.get(key as string, { scope }), InvalidInputError, 'INVALID_ARGUMENT');
      }
      // The longest allowed key works.
      await handle.store('k'.repeat(256), 'long', { scope });
      expect(await handle.get('k'.repeat(256), { scope })).toBe('long');
    }
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('refuses values that are not JSON (INVALID_ARGUMENT) or over 1 MiB of JSON (TOO_LARGE)', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'sizes', userId: 'u1', agentId: 'a1' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const notJson: unknown[] = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      { a: undefined },
      [() => 1],
      cyclic,
      new Date(0),
      10n,
    ];
    // 1 MiB of JSON is the limit: a string of 1 MiB minus its two quotes fits, one character more does not.
    const fits = 'x'.repeat(1024 * 1024 - 2);
    for (const scope of SCOPES) {
      for (const value of notJson)
        await expectRejection(handle.store('k', value as JsonValue, { scope }), InvalidInputError, 'INVALID_ARGUMENT');
      await expectRejection(handle.store('k', `${fits}x`, { scope }), InvalidInputError, 'TOO_LARGE');
      expect(await handle.get('k', { scope })).toBeUndefined();
    }
    await handle.store('big', fits, { scope: 'user' });
    expect(((await handle.get('big', { scope: 'user' })) as string).length).toBe(fits.length);
  });
}
