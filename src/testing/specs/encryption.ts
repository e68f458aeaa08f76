/**
 * Encryption at rest: with a key every record is sealed, keys rotate through a key ring, data
 * opened without the right key fails loudly with `WRONG_KEY` (damage with `CORRUPT`) instead of returning garbage, and a
 * store that could not read a session back is refused (`WRONG_KEY`) before it writes anything.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { StateKeyRing } from '../../state/types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { everyKindOfMessage, expectCode, freshId, richSession, withSeqs } from '../fixtures.js';
import type { ConformanceSuite, SpecScope } from '../suite.js';

const SECRET = 'conformance-secret-0123456789';
const OLD_KEY = randomBytes(32);
const NEW_KEY = 'conformance-new-key-9876543210';
const oldRing: StateKeyRing = { current: 'k1', keys: { k1: OLD_KEY } };
const rotatedRing: StateKeyRing = { current: 'k2', keys: { k1: OLD_KEY, k2: NEW_KEY } };

/** A word that appears in content, metadata, variables and the title, and must not appear on disk. */
const MARKER = 'plaintextmarkerzq';

function markedSession(): Session {
  return Session.create({
    id: freshId(),
    userId: 'owner',
    messages: [
      Message.user(`${MARKER} in the title`),
      Message.assistant(`${MARKER} in content`, { metadata: { note: MARKER } }),
    ],
    variables: { secret: MARKER },
    metadata: { label: MARKER },
  });
}

/**
 * Writes what a keyed store must seal: a marked session, an appended marked message and, with
 * values, a marked value in every scope (value keys are plain: they name what they hold).
 */
async function writeMarked(spec: SpecScope, store: SessionStore): Promise<void> {
  const session = markedSession();
  await store.save(session);
  await store.append(session.id, [Message.user(`${MARKER} appended`, { metadata: { note: MARKER } })]);
  if (!spec.has('values')) return;
  await store.values.set({ scope: 'app' }, { note: `${MARKER} app` });
  await store.values.set({ scope: 'user', userId: 'owner' }, { note: { deep: MARKER } });
  await store.values.set({ scope: 'agent', agentId: 'helper', userId: 'owner' }, { note: [MARKER] });
  await store.values.set({ scope: 'session', sessionId: session.id }, { note: MARKER });
}

/** Every file under `root`, recursively. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** Every read of session `id` fails with `code`, naming the store. */
async function expectUnreadable(store: SessionStore, id: string, code: 'CORRUPT' | 'WRONG_KEY'): Promise<void> {
  const error = await expectCode(() => store.load(id), code);
  expect(error.message).toContain(store.name);
  await expectCode(() => store.get(id), code);
  await expectCode(() => store.getJson(id), code);
  await expectCode(() => store.getJsonBytes(id), code);
  await expectCode(() => store.readMessages(id), code);
}

/** Registers the encryption spec. */
export function encryptionSpec(suite: ConformanceSuite): void {
  suite.describe('encryption', 'encryption at rest', (spec) => {
    spec.it('with a key, save, append, load, readMessages and list round trip', async () => {
      const store = await spec.open({ encryption: SECRET });
      const session = richSession();
      const saved = await store.save(session);
      const extra = everyKindOfMessage().map((message) => Message.with(message, { id: `again-${message.id}` }));
      await store.append(session.id, extra);
      const loaded = await store.load(session.id);
      expect(loaded.messages).toEqual(withSeqs([...session.messages, ...extra]));
      expect(loaded).toMatchObject({
        variables: session.variables,
        metadata: session.metadata,
        lastUsage: session.lastUsage,
        agentId: session.agentId,
        userId: session.userId,
      });
      expect(await store.readMessages(session.id, { limit: 2 })).toEqual(loaded.messages.slice(-2));
      // The session sets `metadata.title`: that is its title (see the titles spec).
      expect((await store.list())[0]).toMatchObject({ id: session.id, title: 'Weather', version: loaded.version });
      expect(saved.version).toBeLessThan(loaded.version);
      // Sealed records are opened and serialized again: the text never carries ciphertext.
      expect(Session.fromJSON(JSON.parse((await store.getJson(session.id)) as string)).toJSON()).toEqual(
        loaded.toJSON(),
      );
      expect(new TextDecoder().decode(await store.getJsonBytes(session.id))).toBe(await store.getJson(session.id));
    });

    spec.it(
      'with a key, no plaintext reaches the store directory',
      async () => {
        const store = await spec.open({ encryption: SECRET });
        await writeMarked(spec, store);
        await store.close();
        const leaks = filesUnder(spec.directoryOf(store)).filter((file) => readFileSync(file).includes(MARKER));
        expect(leaks).toEqual([]);
      },
      { needs: ['directory'] },
    );

    spec.it(
      'with a key, no plaintext reaches the backend',
      async () => {
        const store = await spec.open({ encryption: SECRET });
        await writeMarked(spec, store);
        await store.close();
        const contents = await spec.contentsOf(store);
        // The same writes without a key show the marker: this scan can find it.
        const plain = await spec.open();
        await writeMarked(spec, plain);
        await plain.close();
        expect((await spec.contentsOf(plain)).includes(MARKER)).toBe(true);
        expect(contents.includes(MARKER)).toBe(false);
      },
      { needs: ['contents'] },
    );

    spec.it(
      'after a key rotation, records sealed with the old key stay readable while it is in the ring',
      async () => {
        const store = await spec.open({ encryption: oldRing });
        const session = await store.save(markedSession());
        await store.append(session.id, [Message.user('under k1', { id: 'under-k1' })]);
        const rotated = await spec.reopen(store, { encryption: rotatedRing });
        await rotated.append(session.id, [Message.user('under k2', { id: 'under-k2' })]);
        const loaded = await rotated.load(session.id);
        expect(loaded.messages.map((message) => message.id)).toEqual([
          ...session.messages.map((message) => message.id),
          'under-k1',
          'under-k2',
        ]);
        expect(loaded.variables).toEqual({ secret: MARKER });
        expect((await rotated.list())[0]?.title).toBe(`${MARKER} in the title`);
        // Rewriting the session under the new key makes the old key unnecessary.
        await rotated.save(loaded);
        const newOnly = await spec.reopen(store, { encryption: { current: 'k2', keys: { k2: NEW_KEY } } });
        expect((await newOnly.load(session.id)).messages).toEqual(loaded.messages);
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'opened without the key, reads fail with WRONG_KEY naming the store (not CORRUPT: nothing is damaged); list still works, without titles',
      async () => {
        const store = await spec.open({ encryption: SECRET });
        const session = await store.save(markedSession());
        const keyless = await spec.reopen(store);
        await expectUnreadable(keyless, session.id, 'WRONG_KEY');
        const rows = await keyless.list();
        expect(rows.map((row) => row.id)).toEqual([session.id]);
        expect(rows[0]?.title).toBeUndefined();
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'a wrong key, or a ring that lost the old key, fails with WRONG_KEY',
      async () => {
        const store = await spec.open({ encryption: oldRing });
        const session = await store.save(markedSession());
        const wrongSecret = await spec.reopen(store, { encryption: { current: 'k1', keys: { k1: randomBytes(32) } } });
        await expectUnreadable(wrongSecret, session.id, 'WRONG_KEY');
        const lostOldKey = await spec.reopen(store, { encryption: { current: 'k2', keys: { k2: NEW_KEY } } });
        await expectUnreadable(lostOldKey, session.id, 'WRONG_KEY');
      },
      { needs: ['reopen'] },
    );

    /** Every kind of write `store` may try on session `id`, each expected to be refused with WRONG_KEY. */
    async function expectRefused(store: SessionStore, id: string): Promise<void> {
      const error = await expectCode(
        () => store.append(id, [Message.user('must not land', { id: 'refused' })]),
        'WRONG_KEY',
      );
      expect(error.message).toContain(store.name);
      await expectCode(
        () =>
          store.append(id, [Message.user('must not land', { id: 'refused' })], {
            state: { metadata: { x: 1 }, variables: {} },
          }),
        'WRONG_KEY',
      );
      await expectCode(
        () => store.save(Session.create({ id }).append(Message.user('must not replace it', { id: 'replaced' }))),
        'WRONG_KEY',
      );
    }

    /** The session as `reader` (the right key) sees it: unchanged from `before`. */
    async function expectUnchanged(reader: SessionStore, before: Session): Promise<void> {
      const after = await reader.load(before.id);
      expect(after.version).toBe(before.version);
      expect(after.messages).toEqual(before.messages);
      expect(after.metadata).toEqual(before.metadata);
    }

    spec.it(
      'a store with another secret under the same key id cannot write: WRONG_KEY before anything is written',
      async () => {
        const store = await spec.open({ encryption: oldRing });
        const session = await store.save(markedSession());
        await store.append(session.id, [Message.user('by the owner', { id: 'owner-1' })]);
        const before = await store.load(session.id);
        const wrongSecret = await spec.reopen(store, { encryption: { current: 'k1', keys: { k1: randomBytes(32) } } });
        await expectRefused(wrongSecret, session.id);
        await expectUnchanged(store, before);
        // The rightful writer goes on as before.
        await store.append(session.id, [Message.user('still mine', { id: 'owner-2' })], {
          expectedVersion: before.version,
        });
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'a ring that lacks a key the session uses cannot write, even when its current key is new',
      async () => {
        const store = await spec.open({ encryption: oldRing });
        const session = await store.save(markedSession());
        const before = await store.load(session.id);
        const unknownKey = await spec.reopen(store, { encryption: { current: 'k2', keys: { k2: NEW_KEY } } });
        await expectRefused(unknownKey, session.id);
        await expectUnchanged(store, before);
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'a store without a key cannot write into an encrypted session; a keyed writer may encrypt a plain one, after which plain writers are refused',
      async () => {
        const store = await spec.open({ encryption: SECRET });
        const session = await store.save(markedSession());
        const before = await store.load(session.id);
        const keyless = await spec.reopen(store);
        await expectRefused(keyless, session.id);
        await expectUnchanged(store, before);

        const plain = await spec.reopen(store);
        const open = await plain.save(Session.create({ id: freshId() }).append(Message.user('plain', { id: 'plain' })));
        // Writers without a key share a plain session freely.
        await plain.append(open.id, [Message.user('plain again', { id: 'plain-2' })]);
        await store.append(open.id, [Message.user('sealed now', { id: 'sealed' })]);
        const sealed = await store.load(open.id);
        await expectRefused(plain, open.id);
        await expectUnchanged(store, sealed);
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'key rotation keeps working: a ring holding the old and new keys writes, a ring that only knows the old one no longer can',
      async () => {
        const store = await spec.open({ encryption: oldRing });
        const session = await store.save(markedSession());
        const rotated = await spec.reopen(store, { encryption: rotatedRing });
        // A store that last saw the session under k1 alone appends after another store added k2.
        await store.append(session.id, [Message.user('under k1', { id: 'k1-first' })]);
        await rotated.append(session.id, [Message.user('under k2', { id: 'k2-first' })]);
        await expectRefused(store, session.id);
        await rotated.append(session.id, [Message.user('under k2 again', { id: 'k2-second' })]);
        const loaded = await rotated.load(session.id);
        expect(loaded.messages.map((message) => message.id).slice(-3)).toEqual(['k1-first', 'k2-first', 'k2-second']);
        // Saved whole under k2, the session no longer needs k1: a ring of k2 alone writes it.
        await rotated.save(loaded);
        const newOnly = await spec.reopen(store, { encryption: { current: 'k2', keys: { k2: NEW_KEY } } });
        await newOnly.append(session.id, [Message.user('k2 only', { id: 'k2-only' })]);
        expect((await rotated.load(session.id)).messages.at(-1)?.id).toBe('k2-only');
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'records written before encryption was turned on stay readable with a key',
      async () => {
        const store = await spec.open();
        const session = await store.save(richSession());
        const keyed = await spec.reopen(store, { encryption: SECRET });
        expect((await keyed.load(session.id)).toJSON()).toEqual(session.toJSON());
        await keyed.append(session.id, [Message.user('sealed', { id: 'sealed' })]);
        expect((await keyed.load(session.id)).messages.at(-1)?.id).toBe('sealed');
      },
      { needs: ['reopen'] },
    );
  });
}
