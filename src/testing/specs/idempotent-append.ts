/**
 * Idempotent append: a message id is stored once, however often an append is retried.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { conversation, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the idempotent-append spec. */
export function idempotentAppendSpec(suite: ConformanceSuite): void {
  suite.describe('idempotent-append', 'idempotent append', (spec) => {
    spec.it('retrying an append adds nothing, reports the duplicates and keeps the version', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const batch = conversation(3);
      const first = await store.append(saved.id, batch);
      expect(first.appended.map((message) => message.id)).toEqual(['msg-1', 'msg-2', 'msg-3']);
      expect(first.version).toBeGreaterThan(saved.version);
      const retry = await store.append(saved.id, batch);
      expect(retry).toEqual({ version: first.version, appended: [], duplicates: ['msg-1', 'msg-2', 'msg-3'] });
      const loaded = await store.load(saved.id);
      expect(loaded.messages.map((message) => message.id)).toEqual(['msg-1', 'msg-2', 'msg-3']);
      expect(loaded.version).toBe(first.version);
    });

    spec.it('a partly landed batch adds only the missing messages, after the others', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const [one, two, three] = conversation(3) as [Message, Message, Message];
      await store.append(saved.id, [one, two]);
      const retry = await store.append(saved.id, [two, three]);
      expect(retry.duplicates).toEqual(['msg-2']);
      expect(retry.appended.map((message) => [message.id, message.seq])).toEqual([['msg-3', 3]]);
      expect((await store.readMessages(saved.id)).map((message) => message.id)).toEqual(['msg-1', 'msg-2', 'msg-3']);
    });

    spec.it('messages stored by save count as already stored', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      const result = await store.append(saved.id, [...saved.messages, Message.user('new', { id: 'new' })]);
      expect(result.duplicates).toEqual(['msg-1', 'msg-2']);
      expect(result.appended.map((message) => message.id)).toEqual(['new']);
      expect((await store.load(saved.id)).messages).toHaveLength(3);
    });

    spec.it('the same id twice in one append is stored once: the first, as appended reports it', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const message = Message.user('twice', { id: 'twice' });
      const result = await store.append(saved.id, [message, Message.user('second under the id', { id: 'twice' })]);
      expect(result.appended.map((stored) => [stored.id, stored.content])).toEqual([['twice', 'twice']]);
      expect((await store.load(saved.id)).messages.map((stored) => [stored.id, stored.content])).toEqual([
        ['twice', 'twice'],
      ]);
    });

    spec.it('a retry is recognized by id alone: different content under a known id is not stored', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      await store.append(saved.id, [Message.user('first version', { id: 'same' })]);
      const retry = await store.append(saved.id, [Message.user('second version', { id: 'same' })]);
      expect(retry.duplicates).toEqual(['same']);
      expect((await store.load(saved.id)).messages.map((message) => message.content)).toEqual(['first version']);
    });

    spec.it('message ids are scoped to their session', async () => {
      const store = await spec.open();
      const a = await store.save(Session.create({ id: freshId() }));
      const b = await store.save(Session.create({ id: freshId() }));
      const message = Message.user('shared id', { id: 'shared' });
      expect((await store.append(a.id, [message])).appended).toHaveLength(1);
      expect((await store.append(b.id, [message])).appended).toHaveLength(1);
    });
  });
}
