import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryDriver } from '../stores/memory.js';
import { expectCode } from '../testing/fixtures.js';
import { createSessionStore } from './session-store.js';
import type { UserKeyStore } from './user-key-store.js';

/** A key store in a map: the contract as the core uses it (the real directory has tests of its own). */
function mapKeys(): UserKeyStore & { readonly map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    name: 'map keys',
    map,
    get: async (slot) => map.get(slot),
    create: async (slot, wrapped) => {
      if (!map.has(slot)) map.set(slot, wrapped);
      return map.get(slot) as string;
    },
    destroy: async (slot) => map.delete(slot),
  };
}

const SECRET = 'user-keyring-test-secret-0123';

describe('per-user keys in the core', () => {
  it('needs a store key, and a key store of the right shape', () => {
    expect(() => createSessionStore(memoryDriver(), { userKeys: mapKeys() })).toThrow(/userKeys needs encryption/);
    expect(() =>
      createSessionStore(memoryDriver(), { encryption: SECRET, userKeys: {} as unknown as UserKeyStore }),
    ).toThrow(/must be a UserKeyStore/);
  });

  it('names slots by a keyed hash (no user id in the key store), wraps keys (no raw key either), and seals records with u1 envelopes', async () => {
    const driver = memoryDriver();
    const keys = mapKeys();
    const store = createSessionStore(driver, { encryption: SECRET, userKeys: keys });
    await store.save(Session.create({ id: 's1', userId: 'alice', messages: [Message.user('hi')] }));
    await store.save(Session.create({ id: 's2', messages: [Message.user('nobody')] }));
    const [[slot, wrapped]] = [...keys.map] as [[string, string]];
    expect(slot).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(slot).not.toContain('alice');
    expect(wrapped.startsWith('e1.default.')).toBe(true);
    expect((await driver.readAll('s1'))?.messages[0]?.data.startsWith(`u1.${slot}.`)).toBe(true);
    expect((await driver.readAll('s2'))?.messages[0]?.data.startsWith('e1.default.')).toBe(true);
    // Another store key names other slots: the same user id does not map to the same key elsewhere.
    const other = mapKeys();
    const second = createSessionStore(memoryDriver(), { encryption: `${SECRET}-other`, userKeys: other });
    await second.save(Session.create({ id: 's1', userId: 'alice' }));
    expect([...other.map.keys()]).not.toContain(slot);
  });

  it('a key store that throws an untyped error is UNAVAILABLE, and the append writes nothing', async () => {
    const keys = mapKeys();
    const store = createSessionStore(memoryDriver(), { encryption: SECRET, userKeys: keys });
    await store.save(Session.create({ id: 's1', userId: 'alice', messages: [Message.user('hi')] }));
    const broken = { ...keys, get: async () => Promise.reject(new Error('disk on fire')) };
    const failing = createSessionStore(memoryDriver(), { encryption: SECRET, userKeys: broken });
    await failing.save(Session.create({ id: 'plain' })); // no user: no key needed
    const error = await expectCode(
      () => failing.save(Session.create({ id: 's9', userId: 'bob', messages: [Message.user('x')] })),
      'UNAVAILABLE',
    );
    expect(error.message).toContain('disk on fire');
    expect(await failing.get('s9')).toBeUndefined();
  });
});
