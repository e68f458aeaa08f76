/**
 * Hostile ids: path traversal, absolute paths, prototype keys, separators, control characters and
 * oversized ids are `INVALID_ID` on every method, and never touch anything outside the store; owner
 * ids and value keys that are not well-formed Unicode are refused alike by every store.
 * @module
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Ids an attacker (or a careless caller) may pass where a session id is expected. */
const HOSTILE_IDS: readonly string[] = [
  '../x',
  '../../etc/passwd',
  '..',
  '.',
  'x/../../y',
  '/abs',
  '/tmp/chatstate-hostile',
  'a/b',
  'a\\b',
  '..\\x',
  'C:\\x',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '',
  ' ',
  ' padded',
  'a'.repeat(200),
  'nul\u0000byte',
  'new\nline',
  '.hidden',
  '-dash-first',
  'a:b',
  'a*',
  'key{tag}',
  "x' OR '1'='1",
  'ｆｕｌｌｗｉｄｔｈ',
  'e\u0301',
];

/**
 * A `Session` whose id was never validated: a look-alike built on the class prototype, which
 * `Session.is` accepts. The store must check ids itself instead of trusting the value's type.
 */
function forged(session: Session, id: string): Session {
  const lookAlike: object = Object.assign(Object.create(Session.prototype) as object, { ...session, id });
  return Object.freeze(lookAlike) as Session;
}

/** A look-alike of `session` with other owners, which `Session` itself would refuse: the store must check them. */
function forgedOwner(session: Session, owners: { userId?: string; agentId?: string }): Session {
  const lookAlike: object = Object.assign(Object.create(Session.prototype) as object, { ...session, ...owners });
  return Object.freeze(lookAlike) as Session;
}

/** Where a file named after `id` would land if a store joined it to a path: the spots outside `directory`. */
function landingSpots(directory: string, id: string): Array<{ folder: string; prefix: string }> {
  if (id.length === 0 || id.includes('\u0000')) return [];
  const targets = [resolve(directory, id), resolve(process.cwd(), id), ...(isAbsolute(id) ? [id] : [])];
  return targets
    .filter((target) => !target.startsWith(`${directory}${sep}`))
    .map((target) => ({ folder: dirname(target), prefix: basename(target) }));
}

/**
 * Entries that a write under a hostile id would have created: names starting with the id's last
 * segment (`x`, `x.json`, `x.tmp`…) in the folder it points to. Other names are ignored, so other
 * programs writing to the same folders (such as the system temp folder) do not disturb the check.
 */
function entriesAt(spots: ReadonlyArray<{ folder: string; prefix: string }>): string[] {
  const found = new Set<string>();
  for (const { folder, prefix } of spots) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) if (name.startsWith(prefix)) found.add(join(folder, name));
  }
  return [...found].sort();
}

/** Calls every id-taking method of `store` with `id`, expecting `INVALID_ID` from each. */
async function expectRefusedEverywhere(store: SessionStore, id: string, template: Session): Promise<void> {
  const calls: Record<string, () => Promise<unknown>> = {
    load: () => store.load(id),
    get: () => store.get(id),
    save: () => store.save(forged(template, id)),
    append: () => store.append(id, [Message.user('hostile')]),
    readMessages: () => store.readMessages(id),
    delete: () => store.delete(id),
  };
  for (const [method, call] of Object.entries(calls)) {
    const error = await expectCode(call, 'INVALID_ID').catch((failure: unknown) => {
      throw new Error(`${method}(${JSON.stringify(id)}): ${String(failure)}`, { cause: failure });
    });
    expect(error.code).toBe('INVALID_ID');
  }
}

/** Registers the hostile-id spec. */
export function hostileIdsSpec(suite: ConformanceSuite): void {
  suite.describe('hostile-ids', 'hostile ids', (spec) => {
    spec.it('every method refuses every hostile id with INVALID_ID', async () => {
      const store = await spec.open();
      const template = await store.save(Session.create({ id: freshId(), messages: [Message.user('hello')] }));
      for (const id of HOSTILE_IDS) await expectRefusedEverywhere(store, id, template);
      for (const id of [undefined, null, 42, {}, ['a']] as unknown as string[]) {
        await expectCode(() => store.load(id), 'INVALID_ID');
        await expectCode(() => store.append(id, []), 'INVALID_ID');
      }
      // The legitimate session is untouched by all of it.
      expect((await store.load(template.id)).toJSON()).toEqual(template.toJSON());
      expect((await store.list()).map((row) => row.id)).toEqual([template.id]);
    });

    spec.it(
      'hostile ids create nothing outside the store directory',
      async () => {
        const store = await spec.open();
        const directory = resolve(spec.directoryOf(store));
        const template = await store.save(Session.create({ id: freshId(), messages: [Message.user('warm up')] }));
        const spots = HOSTILE_IDS.flatMap((id) => landingSpots(directory, id));
        const before = entriesAt(spots);
        for (const id of HOSTILE_IDS) await expectRefusedEverywhere(store, id, template);
        expect(entriesAt(spots)).toEqual(before);
      },
      { needs: ['directory'] },
    );

    spec.it(
      'user, agent and value-owner ids and value keys that are not well-formed Unicode are refused alike; U+FFFD stays its own user',
      async () => {
        const store = await spec.open();
        const template = await store.save(
          Session.create({ id: freshId(), userId: 'u-template', messages: [Message.user('hello')] }),
        );
        // A store without values refuses every value call before it looks at the input.
        const values = spec.has('values');
        const valueCode = (code: 'INVALID_ID' | 'INVALID_ARGUMENT') => (values ? code : 'UNSUPPORTED');
        // Lone surrogates have no UTF-8 form: a store would keep another string (U+FFFD) and merge users.
        for (const bad of ['\ud800', '\udc00', 'a\ud800b', '\udbff\udbff', 'end\ud83d']) {
          await expectCode(() => store.save(forgedOwner(template, { userId: bad })), 'INVALID_ID');
          await expectCode(() => store.save(forgedOwner(template, { agentId: bad })), 'INVALID_ID');
          await expectCode(() => store.list({ userId: bad }), 'INVALID_ID');
          await expectCode(() => store.list({ agentId: bad }), 'INVALID_ID');
          await expectCode(() => store.values.set({ scope: 'user', userId: bad }, { k: 1 }), valueCode('INVALID_ID'));
          await expectCode(
            () => store.values.get({ scope: 'agent', agentId: bad, userId: 'u' }, 'k'),
            valueCode('INVALID_ID'),
          );
          await expectCode(() => store.values.set({ scope: 'app' }, { [bad]: 1 }), valueCode('INVALID_ARGUMENT'));
          await expectCode(() => store.values.get({ scope: 'app' }, bad), valueCode('INVALID_ARGUMENT'));
          const search = store.searchText;
          if (search !== undefined)
            await expectCode(() => search({ text: 'hello', userId: bad, limit: 5 }), 'INVALID_ID');
        }
        // Well-formed neighbours of those ids are users of their own.
        const owners = ['\ufffd', '\ud83d\ude00', 'a\ufffdb'];
        const ids = new Map<string, string>();
        for (const owner of owners) {
          const id = freshId();
          ids.set(owner, id);
          await store.save(
            Session.create({ id, userId: owner, agentId: owner, messages: [Message.user(`by ${owner}`)] }),
          );
          if (values) await store.values.set({ scope: 'user', userId: owner }, { who: owner });
        }
        for (const owner of owners) {
          expect((await store.list({ userId: owner })).map((row) => row.id)).toEqual([ids.get(owner)]);
          expect((await store.list({ agentId: owner })).map((row) => row.id)).toEqual([ids.get(owner)]);
          expect((await store.load(ids.get(owner) as string)).userId).toBe(owner);
          if (values) expect(await store.values.get({ scope: 'user', userId: owner }, 'who')).toBe(owner);
        }
        expect((await store.load(template.id)).toJSON()).toEqual(template.toJSON());
      },
    );

    spec.it('owner ids and message ids are data, never syntax', async () => {
      const store = await spec.open();
      const owners = ['*', '%', '_', '?', '[a]', "' OR 1=1 --", '__proto__', 'a:b', '../x', 'null', '\\', 'ü'];
      const ids = new Map<string, string>();
      for (const owner of owners) {
        const id = freshId();
        ids.set(owner, id);
        await store.save(Session.create({ id, userId: owner, agentId: owner }));
      }
      for (const owner of owners) {
        expect((await store.list({ userId: owner })).map((row) => row.id)).toEqual([ids.get(owner)]);
        expect((await store.list({ agentId: owner })).map((row) => row.id)).toEqual([ids.get(owner)]);
      }
      const session = await store.save(Session.create({ id: freshId() }));
      const messageIds = ['a:b', 'x.y', 'z_-.:', `m${'9'.repeat(255)}`, '0'];
      await store.append(
        session.id,
        messageIds.map((id) => Message.user(`id ${id}`, { id })),
      );
      expect((await store.readMessages(session.id)).map((message) => message.id)).toEqual(messageIds);
      expect(
        (
          await store.append(
            session.id,
            messageIds.map((id) => Message.user('again', { id })),
          )
        ).duplicates,
      ).toEqual(messageIds);
      expect(Object.prototype).not.toHaveProperty('vandal');
      expect(Object.keys(Object.prototype)).toEqual([]);
    });
  });
}
