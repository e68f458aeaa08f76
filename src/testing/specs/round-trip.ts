/**
 * Round trips: what `save` and `append` store, `load`, `get` and `readMessages` give back intact.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { everyKindOfMessage, expectCode, freshId, richSession, withSeqs } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the round-trip spec. */
export function roundTripSpec(suite: ConformanceSuite): void {
  suite.describe('round-trip', 'round trips', (spec) => {
    spec.it('save then load and get give back every message kind, owners, variables, metadata and usage', async () => {
      const store = await spec.open();
      const session = richSession();
      const saved = await store.save(session);
      expect(Session.is(saved)).toBe(true);
      expect(saved.messages).toEqual(withSeqs(session.messages));
      const loaded = await store.load(session.id);
      const got = await store.get(session.id);
      expect(loaded.toJSON()).toEqual(saved.toJSON());
      expect(got?.toJSON()).toEqual(saved.toJSON());
      expect(loaded).toMatchObject({
        id: session.id,
        agentId: 'agent-weather',
        userId: 'user-alice',
        createdAt: session.createdAt,
        variables: session.variables,
        metadata: session.metadata,
        lastUsage: session.lastUsage,
      });
      expect(loaded.version).toBeGreaterThanOrEqual(1);
      expect(loaded.version).toBe(saved.version);
    });

    spec.it("keepUpdatedAt stores the session's own updatedAt, as an import or a migration does", async () => {
      const store = await spec.open();
      const json = {
        ...richSession().toJSON(),
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt: '2020-01-02T03:04:05.000Z',
      };
      const old = Session.fromJSON(json);
      const kept = await store.save(old, { keepUpdatedAt: true });
      expect(kept.updatedAt).toBe('2020-01-02T03:04:05.000Z');
      expect((await store.load(old.id)).updatedAt).toBe('2020-01-02T03:04:05.000Z');
      expect((await store.summary(old.id))?.updatedAt).toBe('2020-01-02T03:04:05.000Z');
      // Without it a save is stamped with the time of the write.
      const stamped = await store.save(kept.withMetadata({ touched: true }));
      expect(Date.parse(stamped.updatedAt)).toBeGreaterThan(Date.parse('2021-01-01T00:00:00.000Z'));
      await expectCode(() => store.save(old, { keepUpdatedAt: 'yes' as unknown as boolean }), 'INVALID_ARGUMENT');
    });

    spec.it('sequence numbers are assigned 1..n on save and kept by a later save', async () => {
      const store = await spec.open();
      const saved = await store.save(richSession());
      const count = saved.messages.length;
      expect(saved.messages.map((message) => message.seq)).toEqual(
        Array.from({ length: count }, (_, index) => index + 1),
      );
      const again = await store.save(saved.withMetadata({ touched: true }));
      expect(again.messages.map((message) => message.seq)).toEqual(saved.messages.map((message) => message.seq));
      expect((await store.load(saved.id)).messages).toEqual(saved.messages);
    });

    spec.it('append then load and readMessages give back every message kind', async () => {
      const store = await spec.open();
      const id = freshId();
      await store.save(Session.create({ id }));
      const messages = everyKindOfMessage();
      const result = await store.append(id, messages);
      expect(result.appended).toEqual(withSeqs(messages));
      expect(result.duplicates).toEqual([]);
      expect((await store.load(id)).messages).toEqual(withSeqs(messages));
      expect(await store.readMessages(id)).toEqual(withSeqs(messages));
    });

    spec.it(
      'getJson and getJsonBytes give the session get returns as one line of JSON that fromJSON reads back equal',
      async () => {
        const store = await spec.open();
        const session = richSession();
        await store.save(session);
        await store.append(
          session.id,
          everyKindOfMessage().map((message) => Message.with(message, { id: `json-${message.id}` })),
        );
        const text = await store.getJson(session.id);
        expect(text).toBeDefined();
        expect(text).not.toMatch(/[\r\n]/);
        const got = await store.get(session.id);
        expect(Session.fromJSON(JSON.parse(text as string)).toJSON()).toEqual(got?.toJSON());
        expect(await store.getJson(freshId())).toBeUndefined();
        // The bytes are the same text, encoded (the fixtures hold non-ASCII text).
        expect(new TextDecoder().decode(await store.getJsonBytes(session.id))).toBe(text);
        expect(await store.getJsonBytes(freshId())).toBeUndefined();
      },
    );

    spec.it('plain message inputs are validated and stored as messages', async () => {
      const store = await spec.open();
      const id = freshId();
      await store.save(Session.create({ id }));
      const result = await store.append(id, [
        { id: 'plain-1', role: 'user', content: 'hello', timestamp: '2024-01-02T03:04:05.000Z' },
        {
          id: 'plain-2',
          role: 'assistant',
          content: 'hi',
          metadata: { model: 'x' },
          timestamp: '2024-01-02T03:04:06.000Z',
        },
      ]);
      expect(result.appended.map((message) => [message.id, message.seq])).toEqual([
        ['plain-1', 1],
        ['plain-2', 2],
      ]);
      const loaded = await store.load(id);
      expect(loaded.messages.every((message) => Message.is(message))).toBe(true);
      expect(loaded.messages[1]).toMatchObject({
        role: 'assistant',
        category: 'dialog',
        content: 'hi',
        metadata: { model: 'x' },
      });
    });

    spec.it('text with NUL, lone surrogates, astral characters and 256 KiB of content survives', async () => {
      const store = await spec.open();
      const awkward = `nul:\u0000 lone:\ud800 \udc00 astral:𝄞🙂 rtl:\u202e quote:" backslash:\\ newline:\n tab:\t`;
      const session = Session.create({
        id: freshId(),
        messages: [
          Message.user(awkward, { id: 'awkward', metadata: { awkward } }),
          Message.assistant('x'.repeat(256 * 1024), { id: 'large' }),
        ],
        variables: { awkward },
      });
      await store.save(session);
      const loaded = await store.load(session.id);
      expect(loaded.messages[0]?.content).toBe(awkward);
      expect(loaded.messages[0]?.metadata).toEqual({ awkward });
      expect(loaded.variables).toEqual({ awkward });
      expect(loaded.messages[1]?.content).toBe('x'.repeat(256 * 1024));
    });

    spec.it('a later save replaces owners, variables and metadata', async () => {
      const store = await spec.open();
      const saved = await store.save(richSession());
      const changed = saved
        .withAgent(undefined)
        .withUser('user-bob')
        .withVariable('turn', undefined)
        .withMetadata({ title: 'Renamed' });
      const resaved = await store.save(changed);
      expect(resaved.version).toBeGreaterThan(saved.version);
      const loaded = await store.load(saved.id);
      expect(loaded.agentId).toBeUndefined();
      expect(loaded.userId).toBe('user-bob');
      expect(loaded.variables).not.toHaveProperty('turn');
      expect(loaded.metadata).toMatchObject({ title: 'Renamed', tags: ['travel', 'paris'] });
      expect(loaded.createdAt).toBe(saved.createdAt);
      expect(loaded.toJSON()).toEqual(resaved.toJSON());
    });

    spec.it('an empty session round trips and an empty append changes nothing', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const result = await store.append(saved.id, []);
      expect(result).toMatchObject({ version: saved.version, appended: [], duplicates: [] });
      expect((await store.load(saved.id)).toJSON()).toEqual(saved.toJSON());
    });

    spec.it('a missing session: get gives undefined, load fails with NOT_FOUND naming the store', async () => {
      const store = await spec.open();
      const id = freshId();
      expect(await store.get(id)).toBeUndefined();
      const error = await expectCode(() => store.load(id), 'NOT_FOUND');
      expect(error.message).toContain(store.name);
    });

    spec.it('invalid input is refused and stores nothing', async () => {
      const store = await spec.open();
      const id = freshId();
      await expectCode(() => store.save({ id } as unknown as Session), 'INVALID_SESSION');
      expect(await store.get(id)).toBeUndefined();
      const saved = await store.save(Session.create({ id }));
      await expectCode(
        () =>
          store.append(id, [
            { role: 'user', content: 'ok', id: 'ok-1' },
            { role: 'tool', content: 'no call id' },
          ]),
        'INVALID_MESSAGE',
      );
      await expectCode(() => store.append(id, 'not an array' as unknown as Message[]), 'INVALID_ARGUMENT');
      expect((await store.load(id)).toJSON()).toEqual(saved.toJSON());
    });
  });
}
