/**
 * `replaceTail(id, { afterSeq, messages, expectedVersion })`: the messages after a seq replaced in
 * one commit on a version — the head before kept as it was, new seqs above the high-water mark,
 * version + 1, counts and title right — and refused whole (nothing changed) on a stale version, a
 * missing session or bad input; racing appends are never lost.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ChatstateError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { ReplaceTailInput, ReplaceTailResult, SessionStore } from '../../store/session-store-types.js';
import { userKeyDirectory } from '../../store/user-key-directory.js';
import { estimate } from '../../tokens/estimate.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** The store's `replaceTail`; a store without it fails the spec (every store made by `createSessionStore` has it). */
function replaceTail(store: SessionStore, id: string, input: ReplaceTailInput): Promise<ReplaceTailResult> {
  if (store.replaceTail === undefined) throw new Error(`${store.name} has no replaceTail`);
  return store.replaceTail(id, input);
}

/** The session as stored: its messages' JSON and its row of `list`. */
async function snapshot(store: SessionStore, id: string): Promise<{ json: string | undefined; row: unknown }> {
  return { json: await store.getJson(id), row: await store.summary(id) };
}

async function started(store: SessionStore, count = 6): Promise<Session> {
  return store.save(Session.create({ id: freshId(), userId: 'user-tail', messages: conversation(count, 'h') }));
}

/** Registers the replace-tail spec. */
export function replaceTailSpec(suite: ConformanceSuite): void {
  suite.describe('replace-tail', 'replacing the tail of a session', (spec) => {
    spec.it(
      'replaces the messages after afterSeq, keeps those before byte-identical, seqs above the old last',
      async () => {
        const store = await spec.open();
        const saved = await started(store);
        const before = await store.load(saved.id);
        const cut = before.messages[3]?.seq as number;
        const lastSeq = before.messages.at(-1)?.seq as number;
        const result = await replaceTail(store, saved.id, {
          afterSeq: cut,
          messages: [Message.assistant('a better answer', { id: 'new-1' }), Message.user('and then?', { id: 'new-2' })],
          expectedVersion: before.version,
        });
        expect(result.version).toBe(before.version + 1);
        expect(result.removed).toBe(2);
        expect(result.messages.map((message) => message.seq)).toEqual([lastSeq + 1, lastSeq + 2]);
        const after = await store.load(saved.id);
        expect(after.version).toBe(result.version);
        expect(after.messages.map((message) => message.id)).toEqual(['h-1', 'h-2', 'h-3', 'h-4', 'new-1', 'new-2']);
        expect(after.messages.slice(0, 4).map((message) => JSON.stringify(message))).toEqual(
          before.messages.slice(0, 4).map((message) => JSON.stringify(message)),
        );
        expect(after.messages.slice(4).map((message) => message.seq)).toEqual([lastSeq + 1, lastSeq + 2]);
        expect(after.messages.map((message) => Message.text(message)).slice(4)).toEqual([
          'a better answer',
          'and then?',
        ]);
        // Ranges see the same tail, and an append continues above it.
        const range = await store.readMessages(saved.id, { afterSeq: cut });
        expect(range.map((message) => message.id)).toEqual(['new-1', 'new-2']);
        const appended = await store.append(saved.id, [Message.user('next', { id: 'next-1' })]);
        expect(appended.appended[0]?.seq).toBe(lastSeq + 3);
        expect(appended.version).toBe(result.version + 1);
      },
    );

    spec.it('a pop (no new messages) and a replace at the very end keep seqs going up, never reused', async () => {
      const store = await spec.open();
      const saved = await started(store, 4);
      const popped = await replaceTail(store, saved.id, { afterSeq: 3, messages: [], expectedVersion: saved.version });
      expect(popped).toMatchObject({ version: saved.version + 1, removed: 1, messages: [] });
      // afterSeq may be the last seq ever given (4, now gone): nothing removed, messages added after it.
      const added = await replaceTail(store, saved.id, {
        afterSeq: 4,
        messages: [Message.assistant('again', { id: 'h-4' })],
        expectedVersion: popped.version,
      });
      expect(added.removed).toBe(0);
      expect(added.messages[0]?.seq).toBe(5);
      const loaded = await store.load(saved.id);
      expect(loaded.messages.map((message) => [message.id, message.seq])).toEqual([
        ['h-1', 1],
        ['h-2', 2],
        ['h-3', 3],
        ['h-4', 5],
      ]);
      // Replacing everything (afterSeq 0) keeps numbering above the high-water mark.
      const all = await replaceTail(store, saved.id, {
        afterSeq: 0,
        messages: conversation(1, 'fresh'),
        expectedVersion: added.version,
      });
      expect(all).toMatchObject({ removed: 4 });
      expect((await store.load(saved.id)).messages.map((message) => message.seq)).toEqual([6]);
    });

    spec.it('message count, token count and title follow the tail; a title once set stays', async () => {
      const store = await spec.open();
      const saved = await started(store);
      const messages = [Message.assistant('a much longer answer than the one it replaces, ' + 'word '.repeat(40))];
      await replaceTail(store, saved.id, { afterSeq: 5, messages, expectedVersion: saved.version });
      const loaded = await store.load(saved.id);
      const row = await store.summary(saved.id);
      expect(row?.messageCount).toBe(6);
      expect(row?.tokenCount).toBe(loaded.messages.reduce((sum, message) => sum + estimate.countMessage(message), 0));
      expect(row?.title).toBe('question 1');
      // Removing the message that gave the title keeps the title.
      await replaceTail(store, saved.id, { afterSeq: 0, messages: [], expectedVersion: saved.version + 1 });
      const emptied = await store.summary(saved.id);
      expect(emptied).toMatchObject({
        messageCount: 0,
        tokenCount: 0,
        title: 'question 1',
        version: saved.version + 2,
      });
      // A session without a title takes its first user message's from a new tail.
      const untitled = await store.save(Session.create({ id: freshId() }));
      await replaceTail(store, untitled.id, {
        afterSeq: 0,
        messages: [Message.user('titled by the tail', { id: 't-1' })],
        expectedVersion: untitled.version,
      });
      expect((await store.summary(untitled.id))?.title).toBe('titled by the tail');
    });

    spec.it('sealed with the owner’s key: an encrypted store with per-user keys reads the new tail back', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chatstate-tail-keys-'));
      try {
        const store = await spec.open({
          encryption: 'replace-tail-store-secret-0123456789',
          userKeys: userKeyDirectory(dir),
        });
        const saved = await started(store);
        await replaceTail(store, saved.id, {
          afterSeq: 4,
          messages: [Message.assistant('sealed answer', { id: 'sealed-1' })],
          expectedVersion: saved.version,
        });
        const loaded = await store.load(saved.id);
        expect(loaded.messages.map((message) => Message.text(message)).slice(3)).toEqual(['answer 4', 'sealed answer']);
        expect((await store.summary(saved.id))?.title).toBe('question 1');
        const appended = await store.append(saved.id, [Message.user('after', { id: 'after-1' })]);
        expect(appended.appended[0]?.seq).toBe(8);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    spec.it('state replaces metadata and variables in the same commit', async () => {
      const store = await spec.open();
      const saved = await started(store, 2);
      await replaceTail(store, saved.id, {
        afterSeq: 1,
        messages: conversation(1, 'x'),
        expectedVersion: saved.version,
        state: { metadata: { edited: true }, variables: { plan: 'b' } },
      });
      const loaded = await store.load(saved.id);
      expect(loaded.metadata).toEqual({ edited: true });
      expect(loaded.variables).toEqual({ plan: 'b' });
    });

    spec.it('a stale version is CONFLICT and a missing session NOT_FOUND, with nothing changed', async () => {
      const store = await spec.open();
      const saved = await started(store);
      await store.append(saved.id, conversation(1, 'later'));
      const before = await snapshot(store, saved.id);
      await expectCode(
        () => replaceTail(store, saved.id, { afterSeq: 2, messages: [], expectedVersion: saved.version }),
        'CONFLICT',
      );
      expect(await snapshot(store, saved.id)).toEqual(before);
      await expectCode(
        () => replaceTail(store, freshId(), { afterSeq: 0, messages: [], expectedVersion: 1 }),
        'NOT_FOUND',
      );
    });

    spec.it('bad input is INVALID_ARGUMENT with nothing changed', async () => {
      const store = await spec.open();
      const saved = await started(store);
      const before = await snapshot(store, saved.id);
      const version = saved.version;
      const bad: ReplaceTailInput[] = [
        { afterSeq: -1, messages: [], expectedVersion: version },
        { afterSeq: 1.5, messages: [], expectedVersion: version },
        { afterSeq: 7, messages: [], expectedVersion: version },
        { afterSeq: 2, messages: 'no' as never, expectedVersion: version },
        { afterSeq: 2, messages: [], expectedVersion: -1 },
        // Ids unique: twice in the tail, or one the kept part holds.
        { afterSeq: 2, messages: conversation(1, 'd').concat(conversation(1, 'd')), expectedVersion: version },
        { afterSeq: 2, messages: [Message.user('again', { id: 'h-1' })], expectedVersion: version },
      ];
      for (const input of bad) {
        const error = await expectCode(() => replaceTail(store, saved.id, input), 'INVALID_ARGUMENT');
        expect(error).toBeInstanceOf(ChatstateError);
      }
      // An invalid message is refused as `append` refuses it.
      await expectCode(
        () =>
          replaceTail(store, saved.id, {
            afterSeq: 2,
            messages: [{ role: 'nobody' } as never],
            expectedVersion: version,
          }),
        'INVALID_MESSAGE',
      );
      expect(await snapshot(store, saved.id)).toEqual(before);
    });

    spec.it('concurrent replaceTail and append from two callers never lose an acknowledged write', async () => {
      const store = await spec.open();
      const other = spec.config.reopen === undefined ? store : await spec.reopen(store);
      const saved = await started(store, 4);
      for (let round = 0; round < 6; round++) {
        // The tail replaced is a filler of this round: an earlier round's append is never in it.
        await store.append(saved.id, [Message.assistant(`filler ${round}`, { id: `f-${round}` })]);
        const head = await store.load(saved.id);
        const last = head.messages.at(-1)?.seq ?? 0;
        const [replaced, appended] = await Promise.allSettled([
          replaceTail(store, saved.id, {
            afterSeq: Math.max(0, last - 1),
            messages: [Message.assistant(`regenerated ${round}`, { id: `r-${round}` })],
            expectedVersion: head.version,
          }),
          other.append(saved.id, [Message.user(`appended ${round}`, { id: `a-${round}` })]),
        ]);
        expect(appended.status).toBe('fulfilled');
        const ids = (await store.load(saved.id)).messages.map((message) => message.id);
        // The append was acknowledged: it is there, whichever commit came first.
        if (replaced.status === 'fulfilled') {
          expect(ids).toContain(`r-${round}`);
          // The replace won only if it came first: then the append follows it.
          expect(ids.at(-1)).toBe(`a-${round}`);
        } else {
          expect(ChatstateError.hasCode(replaced.reason, 'CONFLICT')).toBe(true);
          expect(ids).not.toContain(`r-${round}`);
        }
        expect(ids).toContain(`a-${round}`);
        for (let earlier = 0; earlier < round; earlier++) expect(ids).toContain(`a-${earlier}`);
      }
    });
  });
}
