/**
 * Per-user keys (`userKeys`): a user's records are sealed with a key of their own, kept in a key
 * directory apart from the store; forgetting the user destroys it, so a backup of the store taken
 * before holds nothing of them in the clear and, opened again with the same store key and key
 * directory, fails each read of theirs with `WRONG_KEY` while another user's sessions read as they
 * were. A damaged key is `CORRUPT` for its user only; a key directory that cannot be reached is
 * `UNAVAILABLE` with nothing written; a store without `userKeys` cannot read or write over them.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStoreOptions } from '../../store/session-store.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { userKeyDirectory } from '../../store/user-key-directory.js';
import { expectCode } from '../fixtures.js';
import type { ConformanceSuite, SpecScope } from '../suite.js';

const SECRET = 'user-keys-store-secret-0123456789';

/** Lowercase letters ending in `x`: one search term, kept whole by stemmers (see the forget-user spec). */
function marker(): string {
  return `zk${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (digit) => 'abcdefghij'[Number(digit)] as string)}x`;
}

/** A user id that holds no marker: ids stay in the clear in heads and value names, text must not. */
function userId(): string {
  return `u-${randomBytes(6).toString('hex')}`;
}

/** Key directories made by the spec, removed after each test. */
const directories: string[] = [];

/** A fresh key directory and the store options that keep user keys in it. */
function keyed(): { dir: string; options: SessionStoreOptions } {
  const dir = mkdtempSync(join(tmpdir(), 'chatstate-user-keys-'));
  directories.push(dir);
  return { dir, options: { encryption: SECRET, userKeys: userKeyDirectory(dir) } };
}

/** What one user holds: a session saved, appended to and saved whole, with a title, metadata and variables; values in every scope. */
async function plant(spec: SpecScope, store: SessionStore, user: string, mark: string): Promise<string> {
  const id = `s-${randomBytes(6).toString('hex')}`;
  const saved = await store.save(
    Session.create({
      id,
      userId: user,
      agentId: 'helper',
      messages: [Message.user(`my secret is ${mark}`), Message.assistant(`noted ${mark}`)],
      metadata: { note: mark },
      variables: { secret: mark },
    }),
  );
  await store.append(id, [Message.user(`and ${mark} again`)]);
  await store.save((await store.load(id)).append(Message.assistant(`still ${mark}`)), {
    expectedVersion: saved.version + 1,
  });
  await store.append(id, [Message.user(`last ${mark}`)], { state: { metadata: { note: mark }, variables: {} } });
  if (spec.has('values')) {
    await store.values.set({ scope: 'user', userId: user }, { likes: `${mark} tea` });
    await store.values.set({ scope: 'agent', agentId: 'helper', userId: user }, { note: `${mark} note` });
    await store.values.set({ scope: 'session', sessionId: id }, { side: mark });
  }
  return id;
}

/** Every read of user `user`'s session `id` and values fails with `code`. */
async function expectUserUnreadable(
  spec: SpecScope,
  store: SessionStore,
  user: string,
  id: string,
  code: 'WRONG_KEY' | 'CORRUPT' | 'UNAVAILABLE',
): Promise<void> {
  await expectCode(() => store.load(id), code);
  await expectCode(() => store.getJson(id), code);
  await expectCode(() => store.readMessages(id), code);
  if (!spec.has('values')) return;
  await expectCode(() => store.values.getAll({ scope: 'user', userId: user }), code);
  await expectCode(() => store.values.get({ scope: 'agent', agentId: 'helper', userId: user }, 'note'), code);
  await expectCode(() => store.values.getAll({ scope: 'session', sessionId: id }), code);
}

/** What a user's data reads as: the session's JSON and, with values, every scope's. */
async function readAll(spec: SpecScope, store: SessionStore, user: string, id: string): Promise<unknown[]> {
  return [
    await store.getJson(id),
    ...(spec.has('values')
      ? [
          await store.values.getAll({ scope: 'user', userId: user }),
          await store.values.getAll({ scope: 'agent', agentId: 'helper', userId: user }),
          await store.values.getAll({ scope: 'session', sessionId: id }),
        ]
      : []),
  ];
}

/** The key files of a key directory, but those of `apart` (keys a store made before the test's: a neighbour's). */
function keyFiles(dir: string, apart: readonly string[] = []): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.key') && !apart.includes(name));
}

/** Registers the user-keys spec. */
export function userKeysSpec(suite: ConformanceSuite): void {
  suite.describe('user-keys', 'per-user keys: a forgotten user stays unreadable in every copy', (spec) => {
    afterEach(() => {
      for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    spec.it(
      'a backup taken before forgetUser yields nothing of the user after it; another user and sessions of no user still read',
      async () => {
        const { options } = keyed();
        const store = await spec.open(options);
        const [gone, kept] = [marker(), marker()];
        const [goneUser, keptUser] = [userId(), userId()];
        const goneId = await plant(spec, store, goneUser, gone);
        const keptId = await plant(spec, store, keptUser, kept);
        const plain = await store.save(Session.create({ messages: [Message.user(`nobody's ${kept}`)] }));
        const keptBefore = await readAll(spec, store, keptUser, keptId);
        const backup = await spec.backup(store);
        // The copy holds both users (their ids are in the clear: the scan reads it), no text of either.
        const copied = await backup.contents();
        expect(copied.includes(goneUser)).toBe(true);
        expect(copied.includes(gone)).toBe(false);
        expect(copied.includes(kept)).toBe(false);

        const receipt = await store.forgetUser(goneUser);
        expect(receipt.removed.keys).toBe(1);
        expect(receipt.removed.sessions).toBe(1);

        const restored = await backup.open(options);
        await expectUserUnreadable(spec, restored, goneUser, goneId, 'WRONG_KEY');
        const error = await expectCode(() => restored.load(goneId), 'WRONG_KEY');
        expect(error.message).toContain('destroyed');
        // Listed as the copy holds it (the owner is in the clear), with no title to show.
        const row = (await restored.list({ userId: goneUser }))[0];
        expect(row?.id).toBe(goneId);
        expect(row?.title).toBeUndefined();
        expect(await readAll(spec, restored, keptUser, keptId)).toEqual(keptBefore);
        expect((await restored.load(plain.id)).messages[0]?.content).toBe(`nobody's ${kept}`);
        // The user's sessions in the copy cannot be written either: nothing would read them back.
        await expectCode(() => restored.append(goneId, [Message.user('more')]), 'WRONG_KEY');
      },
      { needs: ['backup'] },
    );

    spec.it(
      'without userKeys the same store key reads no user-keyed record and writes none over it',
      async () => {
        const { options } = keyed();
        const store = await spec.open(options);
        const user = userId();
        const id = await plant(spec, store, user, marker());
        const plainKey = await spec.reopen(store, { encryption: SECRET });
        await expectUserUnreadable(spec, plainKey, user, id, 'WRONG_KEY');
        await expectCode(() => plainKey.append(id, [Message.user('more')]), 'WRONG_KEY');
        expect((await store.load(id)).messages).toHaveLength(5);
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'a session given another user is sealed with the new owner key: forgetting the old owner leaves it readable',
      async () => {
        const { options } = keyed();
        const store = await spec.open(options);
        const [first, second] = [userId(), userId()];
        const id = await plant(spec, store, first, marker());
        // Its session values stay sealed with the first owner's key (they cannot all be found to seal again).
        const moved = await store.save((await store.load(id)).withUser(second));
        await store.append(id, [Message.user('after the move')]);
        await store.forgetUser(first);
        const reread = await store.load(id);
        expect(reread.userId).toBe(second);
        expect(reread.messages.map((message) => message.id)).toEqual([
          ...moved.messages.map((message) => message.id),
          reread.messages.at(-1)?.id,
        ]);
      },
    );

    spec.it(
      'forgetting a user with nothing stored destroys no key; a user forgotten and back gets a new key',
      async () => {
        const { dir, options } = keyed();
        const store = await spec.open(options);
        const others = keyFiles(dir);
        const nobody = await store.forgetUser(userId());
        expect(nobody.removed.keys).toBe(0);
        expect(nobody.removed.sessions).toBe(0);
        const user = userId();
        await plant(spec, store, user, marker());
        const [before] = keyFiles(dir, others);
        expect((await store.forgetUser(user)).removed.keys).toBe(1);
        expect(keyFiles(dir, others)).toEqual([]);
        expect((await store.forgetUser(user)).removed.keys).toBe(0);
        const id = await plant(spec, store, user, marker());
        expect((await store.load(id)).messages).toHaveLength(5);
        expect(keyFiles(dir, others)).toEqual([before]);
      },
    );

    spec.it(
      'a damaged key file is CORRUPT for its user only; the listing and other users go on',
      async () => {
        const { dir, options } = keyed();
        const store = await spec.open(options);
        const others = keyFiles(dir);
        const [damaged, other] = [userId(), userId()];
        const damagedId = await plant(spec, store, damaged, marker());
        const [file] = keyFiles(dir, others);
        const otherId = await plant(spec, store, other, marker());
        const otherBefore = await readAll(spec, store, other, otherId);
        writeFileSync(join(dir, file as string), 'e1.default.not.a.key');
        // A fresh store over the same data: nothing of the key is remembered in memory.
        const fresh = await spec.reopen(store, options);
        await expectUserUnreadable(spec, fresh, damaged, damagedId, 'CORRUPT');
        expect(await readAll(spec, fresh, other, otherId)).toEqual(otherBefore);
        const rows = await fresh.list({ limit: 100 });
        expect(rows.map((row) => row.id).sort()).toEqual([damagedId, otherId].sort());
        expect(rows.find((row) => row.id === otherId)?.title).toBeDefined();
      },
      { needs: ['reopen'] },
    );

    spec.it(
      'a key directory that cannot be reached is UNAVAILABLE: nothing is written, and a forget cut short finishes when called again',
      async () => {
        const { dir, options } = keyed();
        const store = await spec.open(options);
        const others = keyFiles(dir);
        const user = userId();
        const id = await plant(spec, store, user, marker());
        const before = await store.getJson(id);
        renameSync(dir, `${dir}-away`);
        try {
          const fresh = await spec.reopen(store, options);
          await expectCode(() => fresh.append(id, [Message.user('lost?')]), 'UNAVAILABLE');
          await expectCode(() => store.append(id, [Message.user('lost?')]), 'UNAVAILABLE');
          await expectCode(() => store.save(Session.create({ userId: userId() })), 'UNAVAILABLE');
          if (spec.has('values'))
            await expectCode(() => store.values.set({ scope: 'user', userId: user }, { more: 1 }), 'UNAVAILABLE');
          await expectCode(() => fresh.load(id), 'UNAVAILABLE');
          expect(await store.list({ limit: 100 })).toHaveLength(1);
        } finally {
          renameSync(`${dir}-away`, dir);
        }
        expect(await store.getJson(id)).toBe(before);
        // A forget whose key cannot be destroyed fails after removing the data; called again, it destroys the key.
        renameSync(dir, `${dir}-away`);
        try {
          await expectCode(() => store.forgetUser(user), 'UNAVAILABLE');
          expect(await store.get(id)).toBeUndefined();
        } finally {
          renameSync(`${dir}-away`, dir);
        }
        expect(keyFiles(dir, others)).toHaveLength(1);
        const again = await store.forgetUser(user);
        expect(again.removed).toMatchObject({ sessions: 0, keys: 1 });
        expect(keyFiles(dir, others)).toEqual([]);
      },
      { needs: ['reopen'] },
    );
  });
}
