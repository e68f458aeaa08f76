/**
 * `forgetUser`: nothing of the user can be read through any API afterwards (list, load, values,
 * search), another user's data is untouched byte for byte, a second call counts zeros, bad ids
 * are refused with a typed error, and — for a store that keeps files — no byte of its directory
 * names the user or holds their text, backups and journals of earlier saves included; for a store
 * whose backend the suite can read (`contents`), no byte of it does, names of keys included.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { ForgetCounts, SessionStore } from '../../store/session-store-types.js';
import { NO_COUNTS } from '../../store/forget.js';
import { expectCode } from '../fixtures.js';
import type { ConformanceSuite, SpecScope } from '../suite.js';

const ZEROS: ForgetCounts = { ...NO_COUNTS, cached: 0, keys: 0 };

/**
 * A marker no other data holds: lowercase letters, so a full-text index keeps it as one term, and
 * a final `x`, which no English stemmer strips, so the index keeps it whole (a scan can find it).
 */
function marker(): string {
  return `zq${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (digit) => 'abcdefghij'[Number(digit)] as string)}x`;
}

/** What one user holds: two sessions (one saved again, so backups and journals exist), values in every scope. */
async function plant(spec: SpecScope, store: SessionStore, user: string, mark: string): Promise<string[]> {
  const ids = [`${mark}-a`, `${mark}-b`];
  for (const id of ids) {
    const saved = await store.save(
      Session.create({
        id,
        userId: user,
        agentId: 'helper',
        messages: [Message.user(`my secret is ${mark} alpha`), Message.assistant(`noted ${mark}`)],
      }),
    );
    await store.append(id, [Message.user(`and ${mark} again`)]);
    // A whole save over it: the file store keeps the previous snapshot as a backup, and a journal.
    await store.save((await store.load(id)).append(Message.assistant(`still ${mark}`)), {
      expectedVersion: saved.version + 1,
    });
    await store.append(id, [Message.user(`last ${mark}`)]);
  }
  if (spec.has('values')) {
    await store.values.set({ scope: 'user', userId: user }, { likes: `${mark} tea`, [`${mark}-key`]: 1 });
    await store.values.set({ scope: 'agent', agentId: 'helper', userId: user }, { note: `${mark} note` });
    await store.values.set({ scope: 'agent', agentId: 'other-agent', userId: user }, { note: `${mark} other` });
    await store.values.set(
      { scope: 'session', sessionId: ids[0] as string },
      { 'embed/default/3/0': `${mark} vector`, side: mark },
    );
  }
  return ids;
}

/** Every file under `dir` whose name or bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (name.includes(needle)) found.push(full);
      if (statSync(full).isDirectory()) walk(full);
      else if (readFileSync(full).includes(bytes)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** Each place `needle` occurs in `bytes`, with some bytes either side: what a failing scan shows. */
function occurrences(bytes: Buffer, needle: string): string[] {
  const found: string[] = [];
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length))
    found.push(bytes.subarray(Math.max(0, at - 60), at + needle.length + 60).toString('utf8'));
  return found;
}

/** Registers the forget-user spec. */
export function forgetUserSpec(suite: ConformanceSuite): void {
  suite.describe('forget-user', 'forgetUser', (spec) => {
    spec.it('removes every session and value of the user; nothing of them reads back', async () => {
      const store = await spec.open();
      const mark = marker();
      const user = `user-${mark}`;
      const ids = await plant(spec, store, user, mark);
      const receipt = await store.forgetUser(user);
      expect(receipt.userId).toBe(user);
      expect(Number.isNaN(Date.parse(receipt.at))).toBe(false);
      expect(receipt.removed.sessions).toBe(2);
      expect(receipt.removed.messages).toBe(10);
      if (spec.has('values')) {
        expect(receipt.removed.values).toBe(4);
        expect(receipt.removed.sessionValues).toBe(2);
        expect(receipt.removed.vectors).toBe(1);
      }
      if (spec.has('textSearch')) expect(receipt.removed.textRows).toBeGreaterThanOrEqual(10);
      for (const id of ids) {
        expect(await store.get(id)).toBeUndefined();
        expect(await store.summary(id)).toBeUndefined();
        await expectCode(() => store.load(id), 'NOT_FOUND');
        await expectCode(() => store.readMessages(id), 'NOT_FOUND');
      }
      expect(await store.list({ userId: user })).toEqual([]);
      expect((await store.list({ limit: 1000 })).filter((row) => ids.includes(row.id))).toEqual([]);
      if (spec.has('values')) {
        expect(await store.values.getAll({ scope: 'user', userId: user })).toEqual({});
        expect(await store.values.getAll({ scope: 'agent', agentId: 'helper', userId: user })).toEqual({});
        expect(await store.values.getAll({ scope: 'agent', agentId: 'other-agent', userId: user })).toEqual({});
        expect(await store.values.getAll({ scope: 'session', sessionId: ids[0] as string })).toEqual({});
      }
      if (store.searchText !== undefined)
        expect(await store.searchText({ text: mark, userId: user, limit: 100 })).toEqual([]);
    });

    spec.it("leaves another user's sessions, values and search hits exactly as they were", async () => {
      const store = await spec.open();
      const [gone, kept] = [marker(), marker()];
      await plant(spec, store, `user-${gone}`, gone);
      const keptIds = await plant(spec, store, `user-${kept}`, kept);
      // An app value, and an agent value of an agent id that ends like the forgotten user's namespace.
      if (spec.has('values')) {
        await store.values.set({ scope: 'app' }, { motto: kept });
        await store.values.set({ scope: 'agent', agentId: `user-${gone}`, userId: `user-${kept}` }, { x: kept });
      }
      const before = await Promise.all(keptIds.map((id) => store.getJson(id)));
      const rows = await store.list({ userId: `user-${kept}` });
      const values = spec.has('values')
        ? await Promise.all([
            store.values.getAll({ scope: 'user', userId: `user-${kept}` }),
            store.values.getAll({ scope: 'agent', agentId: 'helper', userId: `user-${kept}` }),
            store.values.getAll({ scope: 'agent', agentId: `user-${gone}`, userId: `user-${kept}` }),
            store.values.getAll({ scope: 'session', sessionId: keptIds[0] as string }),
            store.values.getAll({ scope: 'app' }),
          ])
        : [];
      const hits =
        store.searchText === undefined
          ? []
          : await store.searchText({ text: kept, userId: `user-${kept}`, limit: 100 });
      await store.forgetUser(`user-${gone}`);
      expect(await Promise.all(keptIds.map((id) => store.getJson(id)))).toEqual(before);
      expect(await store.list({ userId: `user-${kept}` })).toEqual(rows);
      if (spec.has('values')) {
        expect(
          await Promise.all([
            store.values.getAll({ scope: 'user', userId: `user-${kept}` }),
            store.values.getAll({ scope: 'agent', agentId: 'helper', userId: `user-${kept}` }),
            store.values.getAll({ scope: 'agent', agentId: `user-${gone}`, userId: `user-${kept}` }),
            store.values.getAll({ scope: 'session', sessionId: keptIds[0] as string }),
            store.values.getAll({ scope: 'app' }),
          ]),
        ).toEqual(values);
      }
      if (store.searchText !== undefined)
        expect(await store.searchText({ text: kept, userId: `user-${kept}`, limit: 100 })).toEqual(hits);
    });

    spec.it('is idempotent: a second call, and a call for a user with nothing stored, count zeros', async () => {
      const store = await spec.open();
      const mark = marker();
      await plant(spec, store, `user-${mark}`, mark);
      await store.forgetUser(`user-${mark}`);
      const again = await store.forgetUser(`user-${mark}`);
      expect(again.removed).toEqual(ZEROS);
      expect((await store.forgetUser(`nobody-${mark}`)).removed).toEqual(ZEROS);
    });

    spec.it('refuses an id that is not a user id with INVALID_ID', async () => {
      const store = await spec.open();
      for (const bad of ['', 'x'.repeat(257), 'lone \ud800 surrogate', 42 as unknown as string])
        await expectCode(() => store.forgetUser(bad), 'INVALID_ID');
    });

    spec.it(
      "leaves no file in the store's directory that names the user or holds their text",
      async () => {
        const store = await spec.open();
        const mark = marker();
        await plant(spec, store, `user-${mark}`, mark);
        await store.forgetUser(`user-${mark}`);
        expect(filesHolding(spec.directoryOf(store), mark)).toEqual([]);
      },
      { needs: ['directory'] },
    );

    spec.it(
      "leaves no byte of the user's text or ids in what the backend holds; another user's stay",
      async () => {
        const store = await spec.open();
        const gone = marker();
        const kept = marker();
        await plant(spec, store, `user-${gone}`, gone);
        await plant(spec, store, `user-${kept}`, kept);
        // Both users are in the contents before: the scan after can fail.
        const before = await spec.contentsOf(store);
        expect(occurrences(before, gone).length).toBeGreaterThan(0);
        expect(occurrences(before, kept).length).toBeGreaterThan(0);
        await store.forgetUser(`user-${gone}`);
        const after = await spec.contentsOf(store);
        expect(occurrences(after, gone)).toEqual([]);
        expect(occurrences(after, kept).length).toBe(occurrences(before, kept).length);
      },
      { needs: ['contents'] },
    );
  });
}
