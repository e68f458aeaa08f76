/**
 * Sequence order: every message gets a per-session number that only grows, is never reused, and
 * addresses ranges for `readMessages`.
 * @module
 */
import { expect } from 'vitest';
import { MAX_SEQ } from '../../bounds.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

async function seqs(
  store: SessionStore,
  id: string,
  range?: Parameters<SessionStore['readMessages']>[1],
): Promise<number[]> {
  return (await store.readMessages(id, range)).map((message) => message.seq ?? Number.NaN);
}

/** Registers the sequence spec. */
export function sequenceSpec(suite: ConformanceSuite): void {
  suite.describe('sequence', 'sequence order', (spec) => {
    spec.it('appends continue the sequence after the saved messages', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: conversation(3, 'saved') }));
      const first = await store.append(saved.id, conversation(2, 'a'));
      const second = await store.append(saved.id, conversation(3, 'b'));
      expect(first.appended.map((message) => message.seq)).toEqual([4, 5]);
      expect(second.appended.map((message) => message.seq)).toEqual([6, 7, 8]);
      expect(await seqs(store, saved.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    spec.it('order follows the sequence, not timestamps', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      await store.append(saved.id, [
        Message.user('later clock', { id: 'late-clock', timestamp: '2030-01-01T00:00:00.000Z' }),
      ]);
      await store.append(saved.id, [
        Message.user('earlier clock', { id: 'early-clock', timestamp: '2001-01-01T00:00:00.000Z' }),
      ]);
      expect((await store.load(saved.id)).messages.map((message) => message.id)).toEqual(['late-clock', 'early-clock']);
    });

    spec.it('numbers are never reused after a compacted or truncated session is saved', async () => {
      const store = await spec.open();
      const id = freshId();
      await store.save(Session.create({ id, messages: conversation(10) }));
      const loaded = await store.load(id);
      // Compaction puts a summary before the kept half: numbers must keep increasing, and the ones of
      // the dropped messages may not be given again, so the summary and what follows get new ones.
      const compacted = loaded.withMessages([
        Message.system('summary of 1-5', { id: 'summary' }),
        ...loaded.messages.slice(5),
      ]);
      const saved = await store.save(compacted);
      expect(saved.messages.map((message) => [message.id, message.seq])).toEqual([
        ['summary', 11],
        ['msg-6', 12],
        ['msg-7', 13],
        ['msg-8', 14],
        ['msg-9', 15],
        ['msg-10', 16],
      ]);
      // Truncating the tail does not free its numbers either.
      await store.save(saved.withMessages(saved.messages.slice(0, 2)));
      const appended = await store.append(id, [Message.user('after truncation', { id: 'after' })]);
      expect(appended.appended[0]?.seq).toBe(17);
      expect(await seqs(store, id)).toEqual([11, 12, 17]);
    });

    spec.it('a given number above MAX_SEQ is refused before anything is written; MAX_SEQ itself goes on', async () => {
      const store = await spec.open();
      const id = freshId();
      for (const seq of [MAX_SEQ + 1, Number.MAX_SAFE_INTEGER])
        await expectCode(
          () => store.save(Session.create({ id, messages: [Message.user('first'), Message.user('far', { seq })] })),
          'INVALID_ARGUMENT',
        );
      expect(await store.get(id)).toBeUndefined();
      // The highest number a caller may give leaves room for appends after it.
      await store.save(Session.create({ id, messages: [Message.user('last given', { seq: MAX_SEQ })] }));
      const appended = await store.append(id, [Message.user('after it')]);
      expect(appended.appended[0]?.seq).toBe(MAX_SEQ + 1);
      expect(await seqs(store, id, { afterSeq: MAX_SEQ - 1 })).toEqual([MAX_SEQ, MAX_SEQ + 1]);
      // Numbers the store gave past it are kept by a save of what was read.
      const read = (await store.get(id)) as Session;
      await store.save(read.append(Message.user('saved again')));
      expect(await seqs(store, id, { afterSeq: MAX_SEQ - 1 })).toEqual([MAX_SEQ, MAX_SEQ + 1, MAX_SEQ + 2]);
    });

    spec.it('numbers kept by a save stay strictly increasing', async () => {
      const store = await spec.open();
      const id = freshId();
      const saved = await store.save(Session.create({ id, messages: conversation(4) }));
      const [one, two, three, four] = saved.messages as [Message, Message, Message, Message];
      // An edit inserts a message in the middle: what follows is renumbered after it.
      const edited = await store.save(
        saved.withMessages([one, two, Message.user('inserted', { id: 'inserted' }), three, four]),
      );
      const numbers = edited.messages.map((message) => message.seq ?? 0);
      expect(numbers.slice(0, 2)).toEqual([1, 2]);
      for (let index = 1; index < numbers.length; index++)
        expect(numbers[index]).toBeGreaterThan(numbers[index - 1] ?? 0);
      expect(new Set(numbers.slice(2)).has(3)).toBe(false);
      expect(await seqs(store, id)).toEqual(numbers);
    });

    spec.it('readMessages reads ranges: afterSeq, beforeSeq, and limit as the tail of the range', async () => {
      const store = await spec.open();
      const id = freshId();
      await store.save(Session.create({ id, messages: conversation(10) }));
      expect(await seqs(store, id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await seqs(store, id, { afterSeq: 7 })).toEqual([8, 9, 10]);
      expect(await seqs(store, id, { beforeSeq: 4 })).toEqual([1, 2, 3]);
      expect(await seqs(store, id, { afterSeq: 2, beforeSeq: 6 })).toEqual([3, 4, 5]);
      expect(await seqs(store, id, { limit: 3 })).toEqual([8, 9, 10]);
      expect(await seqs(store, id, { afterSeq: 2, beforeSeq: 9, limit: 2 })).toEqual([7, 8]);
      expect(await seqs(store, id, { afterSeq: 8, limit: 5 })).toEqual([9, 10]);
      expect(await seqs(store, id, { afterSeq: 10 })).toEqual([]);
      expect(await seqs(store, id, { beforeSeq: 1 })).toEqual([]);
      expect(await seqs(store, id, { afterSeq: 5, beforeSeq: 5 })).toEqual([]);
      expect((await store.readMessages(id, { afterSeq: 8 })).map((message) => message.id)).toEqual(['msg-9', 'msg-10']);
    });

    spec.it('readMessages ranges skip the gaps a compaction left', async () => {
      const store = await spec.open();
      const id = freshId();
      const saved = await store.save(Session.create({ id, messages: conversation(10) }));
      await store.save(saved.withMessages(saved.messages.filter((message) => (message.seq ?? 0) % 2 === 0)));
      expect(await seqs(store, id)).toEqual([2, 4, 6, 8, 10]);
      expect(await seqs(store, id, { beforeSeq: 8, limit: 2 })).toEqual([4, 6]);
      expect(await seqs(store, id, { afterSeq: 5 })).toEqual([6, 8, 10]);
    });

    spec.it(
      'readMessages fails with NOT_FOUND for a missing session and INVALID_ARGUMENT for a bad range',
      async () => {
        const store = await spec.open();
        const id = freshId();
        await expectCode(() => store.readMessages(id), 'NOT_FOUND');
        await store.save(Session.create({ id, messages: conversation(2) }));
        for (const range of [
          { limit: 0 },
          { limit: -1 },
          { afterSeq: -1 },
          { beforeSeq: 1.5 },
          { afterSeq: Number.NaN },
        ]) {
          await expectCode(() => store.readMessages(id, range), 'INVALID_ARGUMENT');
        }
      },
    );
  });
}
