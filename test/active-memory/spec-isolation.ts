/** Per-user isolation: values and recall, with matching text on both sides and hostile user ids. */
import { expect, it } from 'vitest';
import { knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { DataError, InvalidInputError } from '../../src/errors.js';
import { isValidId } from '../../src/ids.js';
import { Session } from '../../src/session/session.js';
import { expectRejection, hashedEmbed, seedSession, type Stores } from './harness.js';

// User ids built to collide after a careless encoding, a path join, a case fold or NFKC.
const HOSTILE_USER_IDS = [
  'alice',
  'ALICE',
  'ａｌｉｃｅ',
  'alice/user:bob',
  'user:alice',
  '../alice',
  '__proto__',
  'constructor',
  '%0061lice',
  'alice ',
  'a'.repeat(256),
  '用户',
];

/** Registers the isolation tests. */
export function isolationSpec(stores: Stores): void {
  it('one user never recalls another user’s messages or knowledge, even when both match', async () => {
    const store = await stores.open();
    const owned = new Map<string, Set<string>>();
    for (const user of ['alice', 'bob']) {
      const ids = new Set([knowledgeSessionId(user)]);
      for (const n of [1, 2]) {
        await seedSession(store, `${user}-${n}`, user, [`the secret launch code is zebra ${n}`, `noted, ${user}`]);
        ids.add(`${user}-${n}`);
      }
      owned.set(user, ids);
      await createSessionHandle({ store, sessionId: `${user}-1`, userId: user }).remember(
        `${user} says the launch code zebra is secret`,
      );
    }
    for (const embed of [undefined, hashedEmbed()]) {
      for (const user of ['alice', 'bob']) {
        // Searched from inside the other user's session: the handle's user decides, not the session.
        const other = user === 'alice' ? 'bob' : 'alice';
        const hits = await createSessionHandle({
          store,
          sessionId: `${other}-1`,
          userId: user,
          ...(embed === undefined ? {} : { embed }),
        }).recall('secret launch code zebra', { k: 100 });
        expect(hits.length).toBeGreaterThanOrEqual(3);
        expect(hits.every((hit) => owned.get(user)?.has(hit.sessionId))).toBe(true);
        expect(hits.some((hit) => hit.source === 'knowledge' && hit.text.startsWith(user))).toBe(true);
        expect(hits.some((hit) => hit.text.includes(other))).toBe(false);
      }
    }
  });

  it('keeps user and agent values per user, and app values shared', async () => {
    const store = await stores.open();
    const alice = createSessionHandle({ store, sessionId: 's-alice', userId: 'alice', agentId: 'helper' });
    const bob = createSessionHandle({ store, sessionId: 's-bob', userId: 'bob', agentId: 'helper' });
    await alice.store('color', 'teal', { scope: 'user' });
    await alice.store('notes', 'alice notes', { scope: 'agent' });
    await alice.store('motd', 'hello all', { scope: 'app' });
    expect(await bob.get('color', { scope: 'user' })).toBeUndefined();
    expect(await bob.get('notes', { scope: 'agent' })).toBeUndefined();
    expect(await bob.get('motd', { scope: 'app' })).toBe('hello all');
    await bob.store('color', 'red', { scope: 'user' });
    expect(await alice.get('color', { scope: 'user' })).toBe('teal');
    // Another agent of the same user has its own agent scope.
    const other = createSessionHandle({ store, sessionId: 's-alice', userId: 'alice', agentId: 'critic' });
    expect(await other.get('notes', { scope: 'agent' })).toBeUndefined();
    expect(await other.get('color', { scope: 'user' })).toBe('teal');
  });

  it('keeps hostile user ids apart in values, knowledge and recall', async () => {
    const store = await stores.open();
    const knowledgeIds = new Set(HOSTILE_USER_IDS.map((user) => knowledgeSessionId(user)));
    expect(knowledgeIds.size).toBe(HOSTILE_USER_IDS.length);
    expect([...knowledgeIds].every((id) => isValidId(id))).toBe(true);
    for (const [index, user] of HOSTILE_USER_IDS.entries()) {
      const handle = createSessionHandle({ store, sessionId: `hostile-${index}`, userId: user, agentId: user });
      await handle.store('who', user, { scope: 'user' });
      await handle.store('who', user, { scope: 'agent' });
      await handle.remember(`shared marker word for user number ${index}`);
    }
    for (const [index, user] of HOSTILE_USER_IDS.entries()) {
      const handle = createSessionHandle({ store, sessionId: `hostile-${index}`, userId: user, agentId: user });
      expect(await handle.get('who', { scope: 'user' })).toBe(user);
      expect(await handle.get('who', { scope: 'agent' })).toBe(user);
      const hits = await handle.recall('shared marker word', { k: 100 });
      expect(hits.map((hit) => [hit.sessionId, hit.text])).toEqual([
        [knowledgeSessionId(user), `shared marker word for user number ${index}`],
      ]);
    }
    expect(() => createSessionHandle({ store, sessionId: 'x', userId: 'a'.repeat(257) })).toThrow(InvalidInputError);
    expect(() => createSessionHandle({ store, sessionId: 'x', userId: '' })).toThrow(InvalidInputError);
    expect(() => createSessionHandle({ store, sessionId: '../etc', userId: 'alice' })).toThrow(InvalidInputError);
  });

  it('refuses to write knowledge into a session of that id owned by someone else', async () => {
    const store = await stores.open();
    const squatted = await store.save(Session.create({ id: knowledgeSessionId('victim'), userId: 'attacker' }));
    const victim = createSessionHandle({ store, sessionId: 'v-1', userId: 'victim' });
    await expectRejection(victim.remember('my bank is First National'), DataError, 'CORRUPT');
    expect((await store.load(squatted.id)).messages).toEqual([]);
    expect(await victim.recall('bank')).toEqual([]);
  });

  it('refuses session values and history of a session that belongs to another user', async () => {
    const store = await stores.open();
    await seedSession(store, 'bobs', 'bob', ['hi']);
    await store.save((await store.load('bobs')).withVariable('pin', 1234));
    const mallory = createSessionHandle({ store, sessionId: 'bobs', userId: 'mallory' });
    await expectRejection(mallory.get('pin'), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(mallory.store('pin', 0), InvalidInputError, 'INVALID_ARGUMENT');
    // History pages too: a range read does not say whose it is, so the owner is checked first.
    await expectRejection(mallory.history(), InvalidInputError, 'INVALID_ARGUMENT');
    expect((await createSessionHandle({ store, sessionId: 'bobs', userId: 'bob' }).history()).messages).toHaveLength(1);
    expect((await store.load('bobs')).variables.pin).toBe(1234);
  });
}
