/**
 * `read-at`: `store.readMessagesAt(refs)` gives the message at each (session, seq) ref, in order,
 * as `readMessages` reads it — whether the driver reads them in one call (`readRecordsAt`) or the
 * core reads each — with `undefined` for a missing seq, a missing, deleted or expired session,
 * through encryption at rest (a store key, per-user keys), and refuses what `readMessages` refuses.
 * Recall reads its best hits this way.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStoreOptions } from '../../store/session-store.js';
import type { MessageRef, SessionStore } from '../../store/session-store-types.js';
import { MAX_READ_AT } from '../../store/message-refs.js';
import { userKeyDirectory } from '../../store/user-key-directory.js';
import { FakeClock, conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

function readAt(store: SessionStore, refs: readonly MessageRef[]): Promise<Array<Message | undefined>> {
  expect(typeof store.readMessagesAt).toBe('function');
  return (store.readMessagesAt as NonNullable<SessionStore['readMessagesAt']>)(refs);
}

/** The message `readMessages` gives at `ref`, or `undefined`. */
async function readOne(store: SessionStore, { sessionId, seq }: MessageRef): Promise<Message | undefined> {
  const [message] = await store.readMessages(sessionId, { afterSeq: seq - 1, beforeSeq: seq + 1, limit: 1 });
  return message;
}

/** Two users' sessions, one appended to; refs across them (out of order, one twice) and what each must read. */
async function plant(store: SessionStore): Promise<{ refs: MessageRef[]; expected: Message[] }> {
  const user = `user-${freshId()}`;
  const first = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(4, 'a') }));
  const second = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(3, 'b') }));
  const third = await store.save(Session.create({ id: freshId(), messages: conversation(2, 'c') }));
  await store.append(second.id, [Message.user('appended later', { id: 'b-4' })]);
  const refs: MessageRef[] = [
    { sessionId: second.id, seq: 4 },
    { sessionId: first.id, seq: 1 },
    { sessionId: third.id, seq: 2 },
    { sessionId: first.id, seq: 4 },
    { sessionId: first.id, seq: 1 },
    { sessionId: second.id, seq: 2 },
  ];
  const expected = await Promise.all(refs.map(async (ref) => (await readOne(store, ref)) as Message));
  expect(expected.map((message) => message?.id)).toEqual(['b-4', 'a-1', 'c-2', 'a-4', 'a-1', 'b-2']);
  return { refs, expected };
}

/** Registers the read-at spec. */
export function readAtSpec(suite: ConformanceSuite): void {
  suite.describe('read-at', 'readMessagesAt: the messages at several (session, seq) refs', (spec) => {
    spec.it('reads each ref as readMessages does, in order, and undefined where nothing is', async () => {
      const store = await spec.open();
      const { refs, expected } = await plant(store);
      expect(await readAt(store, refs)).toEqual(expected);
      expect(await readAt(store, [])).toEqual([]);
      const deleted = await store.save(Session.create({ id: freshId(), messages: conversation(2, 'd') }));
      expect(await store.delete(deleted.id)).toBe(true);
      const [kept] = refs as [MessageRef];
      const read = await readAt(store, [
        { sessionId: kept.sessionId, seq: 99 },
        kept,
        { sessionId: freshId(), seq: 1 },
        { sessionId: deleted.id, seq: 1 },
      ]);
      expect(read).toEqual([undefined, expected[0], undefined, undefined]);
    });

    spec.it('leaves out a session once it has expired', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const kept = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      const brief = await store.save(Session.create({ id: freshId(), messages: conversation(2) }), { ttlMs: MINUTE });
      const refs = [
        { sessionId: brief.id, seq: 2 },
        { sessionId: kept.id, seq: 2 },
      ];
      expect((await readAt(store, refs)).map((message) => message?.content)).toEqual(['answer 2', 'answer 2']);
      clock.advance(MINUTE);
      expect((await readAt(store, refs)).map((message) => message?.content)).toEqual([undefined, 'answer 2']);
    });

    spec.it('reads through a store key and through per-user keys', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chatstate-read-at-'));
      try {
        const keyed: SessionStoreOptions[] = [
          { encryption: 'read-at-secret-0123456789' },
          { encryption: 'read-at-secret-0123456789', userKeys: userKeyDirectory(dir) },
        ];
        for (const options of keyed) {
          const store = await spec.open(options);
          const { refs, expected } = await plant(store);
          expect(await readAt(store, refs)).toEqual(expected);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    spec.it(
      'fails as readMessages does on a session the store has no key for',
      async () => {
        const store = await spec.open({ encryption: 'read-at-secret-0123456789' });
        const { refs } = await plant(store);
        const other = await spec.reopen(store, { encryption: 'read-at-other-secret-987654321' });
        await expectCode(() => other.readMessages((refs[0] as MessageRef).sessionId), 'WRONG_KEY');
        await expectCode(() => readAt(other, refs), 'WRONG_KEY');
      },
      { needs: ['reopen'] },
    );

    spec.it('refuses bad refs with a typed error', async () => {
      const store = await spec.open();
      const session = await store.save(Session.create({ id: freshId(), messages: conversation(1) }));
      const sessionId = session.id;
      await expectCode(() => readAt(store, 'nope' as unknown as MessageRef[]), 'INVALID_ARGUMENT');
      await expectCode(() => readAt(store, [null as unknown as MessageRef]), 'INVALID_ARGUMENT');
      for (const seq of [0, -1, 1.5, Number.NaN, '1' as unknown as number])
        await expectCode(() => readAt(store, [{ sessionId, seq }]), 'INVALID_ARGUMENT');
      await expectCode(() => readAt(store, [{ sessionId: '../etc', seq: 1 }]), 'INVALID_ID');
      const many = Array.from({ length: MAX_READ_AT + 1 }, () => ({ sessionId, seq: 1 }));
      await expectCode(() => readAt(store, many), 'INVALID_ARGUMENT');
      expect(await readAt(store, many.slice(1))).toHaveLength(MAX_READ_AT);
    });
  });
}
