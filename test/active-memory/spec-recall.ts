/** `recall` and `remember`: ranking, options, freshness, and embeddings. */
import { expect, it } from 'vitest';
import { knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import type { Embed, RecallHit } from '../../src/active-memory/types.js';
import { CollaboratorError, InvalidInputError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { EMBED_DIMENSIONS, expectRejection, hashedEmbed, seedSession, type Stores } from './harness.js';

function expectRanked(hits: readonly RecallHit[]): void {
  for (const [index, hit] of hits.entries()) {
    expect(hit.score).toBeGreaterThan(0);
    expect(hit.score).toBeLessThanOrEqual(1);
    if (index > 0) expect(hit.score).toBeLessThanOrEqual((hits[index - 1] as RecallHit).score);
  }
}

/** Registers the recall tests. */
export function recallSpec(stores: Stores): void {
  it('finds past messages of the user across sessions, best first, saying where each came from', async () => {
    const store = await stores.open();
    const pets = await seedSession(store, 'pets', 'u1', [
      'I adopted a dog named Biscuit last spring',
      'That sounds lovely',
    ]);
    await seedSession(store, 'cars', 'u1', ['My car needs new tires before winter', 'Try the shop on Main street']);
    await seedSession(store, 'shoes', 'u1', ['Biscuit chewed my favourite shoes again', 'Puppies do that']);
    const handle = createSessionHandle({ store, sessionId: 'cars', userId: 'u1' });
    const hits = await handle.recall('dog Biscuit');
    expectRanked(hits);
    expect(hits.map((hit) => hit.text)).toEqual([
      'I adopted a dog named Biscuit last spring',
      'Biscuit chewed my favourite shoes again',
      // "puppies" is a variant of "dog" (ranking/variants.ts), at a lower weight.
      'Puppies do that',
    ]);
    const adopted = pets.messages[0] as Message;
    expect(hits[0]).toEqual({
      sessionId: 'pets',
      messageId: adopted.id,
      seq: adopted.seq,
      score: 1,
      text: 'I adopted a dog named Biscuit last spring',
      source: 'message',
      timestamp: adopted.timestamp,
    });
    expect(await handle.recall('submarine')).toEqual([]);
    expect(await handle.recall('   ')).toEqual([]);
  });

  it('returns at most k hits and leaves out those below the threshold', async () => {
    const store = await stores.open();
    const texts = [
      'zebra zebra zebra stripes',
      'a zebra at the zoo',
      'zebra crossing near the school',
      'one zebra',
      'zebra',
    ];
    await seedSession(store, 'zoo', 'u1', texts);
    const handle = createSessionHandle({ store, sessionId: 'zoo', userId: 'u1' });
    const all = await handle.recall('zebra stripes', { k: 10 });
    expect(all).toHaveLength(5);
    expectRanked(all);
    expect(all[0]?.text).toBe('zebra zebra zebra stripes');
    expect(await handle.recall('zebra stripes', { k: 2 })).toEqual(all.slice(0, 2));
    const threshold = ((all[1] as RecallHit).score + (all[2] as RecallHit).score) / 2;
    expect(await handle.recall('zebra stripes', { k: 10, threshold })).toEqual(
      all.filter((hit) => hit.score >= threshold),
    );
    expect(await handle.recall('zebra stripes', { k: 10, threshold: 1 })).toEqual([all[0]]);
  });

  it('prefers the messages of the participant a query names, known by their name as by a leading "Name:"', async () => {
    const store = await stores.open();
    await store.save(
      Session.create({ id: 'chat', userId: 'u1' }).append(
        Message.user('The store opening went well, customers loved the new dresses', { name: 'Gina' }),
        Message.user('My dance studio opening went well, the store next door sent flowers', { name: 'Jon' }),
        Message.user('Ana: my opening went well too, at the store by the station'),
      ),
    );
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const first = async (query: string): Promise<string | undefined> => (await handle.recall(query, { k: 3 }))[0]?.text;
    expect(await first('What did Jon say about the store opening?')).toMatch(/^My dance studio/);
    expect(await first('What did Gina say about the store opening?')).toMatch(/^The store opening/);
    expect(await first('What did Ana say about the store opening?')).toMatch(/^Ana:/);
  });

  it('leaves out messages marked metadata.recall: false', async () => {
    const store = await stores.open();
    await store.save(
      Session.create({ id: 'notes', userId: 'u1' }).append(
        Message.user('The locker code is 4411'),
        Message.assistant('Stored the locker code 4411 for you', { metadata: { recall: false } }),
      ),
    );
    const handle = createSessionHandle({ store, sessionId: 'notes', userId: 'u1' });
    expect((await handle.recall('locker code', { k: 5 })).map((hit) => hit.text)).toEqual(['The locker code is 4411']);
  });

  it('rejects bad recall options and queries with typed errors', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'opts', userId: 'u1' });
    for (const options of [
      { k: 0 },
      { k: 101 },
      { k: 1.5 },
      { threshold: -0.1 },
      { threshold: 1.1 },
      { threshold: Number.NaN },
    ]) {
      await expectRejection(handle.recall('x', options), InvalidInputError, 'INVALID_ARGUMENT');
    }
    await expectRejection(handle.recall(42 as unknown as string), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(handle.recall('x'.repeat(10_001)), InvalidInputError, 'TOO_LARGE');
  });

  it('without a user, searches only the current session', async () => {
    const store = await stores.open();
    await seedSession(store, 'mine', undefined, ['the meeting moved to Thursday']);
    await seedSession(store, 'theirs', undefined, ['the meeting moved to Friday']);
    await seedSession(store, 'owned', 'u9', ['the meeting is cancelled']);
    const hits = await createSessionHandle({ store, sessionId: 'mine' }).recall('meeting');
    expect(hits.map((hit) => [hit.sessionId, hit.text])).toEqual([['mine', 'the meeting moved to Thursday']]);
    // A user's session searched through a handle without the user: still that session only.
    const owned = await createSessionHandle({ store, sessionId: 'owned' }).recall('meeting');
    expect(owned.map((hit) => hit.sessionId)).toEqual(['owned']);
  });

  it('a handle without a user notices when its session is compacted', async () => {
    const store = await stores.open();
    await seedSession(store, 'solo', undefined, ['delta plan drafted', 'ok', 'echo numbers checked', 'fine']);
    const handle = createSessionHandle({ store, sessionId: 'solo' });
    expect((await handle.recall('delta')).map((hit) => hit.text)).toEqual(['delta plan drafted']);
    const session = await store.load('solo');
    await store.save(
      session.withMessages([Message.context('summary: foxtrot decided'), ...session.messages.slice(2)]),
      { expectedVersion: session.version },
    );
    expect(await handle.recall('delta')).toEqual([]);
    expect((await handle.recall('foxtrot')).map((hit) => hit.text)).toEqual(['summary: foxtrot decided']);
    expect((await handle.recall('echo')).map((hit) => hit.text)).toEqual(['echo numbers checked']);
  });

  it('gives the same answer to recalls running at the same time', async () => {
    const store = await stores.open();
    await seedSession(store, 'busy', 'u1', ['golf tournament on Sunday', 'hotel golf package', 'no golf today']);
    const handle = createSessionHandle({ store, sessionId: 'busy', userId: 'u1' });
    const results = await Promise.all(Array.from({ length: 5 }, () => handle.recall('golf', { k: 3 })));
    expect(results[0]).toHaveLength(3);
    for (const result of results) expect(result).toEqual(results[0]);
  });

  it('remember stores knowledge about the user that recall finds and marks as knowledge', async () => {
    const store = await stores.open();
    await seedSession(store, 'chat', 'u1', ['Can you suggest a snack?', 'How about trail mix?']);
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const remembered = await handle.remember('The user is allergic to peanuts');
    expect(remembered).toMatchObject({
      sessionId: knowledgeSessionId('u1'),
      source: 'knowledge',
      score: 1,
      text: 'The user is allergic to peanuts',
    });
    const hits = await handle.recall('peanuts allergic');
    expect(hits[0]).toEqual({ ...remembered, score: 1 });
    const knowledge = await store.load(knowledgeSessionId('u1'));
    expect(knowledge.userId).toBe('u1');
    expect(knowledge.messages.map((message) => [message.category, message.metadata.knowledge])).toEqual([
      ['context', true],
    ]);
    await expectRejection(
      createSessionHandle({ store, sessionId: 'chat' }).remember('x'),
      InvalidInputError,
      'INVALID_ARGUMENT',
    );
    await expectRejection(handle.remember('   '), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(handle.remember('x'.repeat(1024 * 1024 + 1)), InvalidInputError, 'TOO_LARGE');
  });

  it('keeps up with appends, in-place rewrites, compaction, deletion and a change of owner', async () => {
    const store = await stores.open();
    const seeded = await seedSession(store, 'live', 'u1', ['alpha report is due', 'noted']);
    const handle = createSessionHandle({ store, sessionId: 'live', userId: 'u1' });
    expect((await handle.recall('alpha')).map((hit) => hit.text)).toEqual(['alpha report is due']);
    await store.append('live', [Message.user('bravo checklist attached')]);
    expect((await handle.recall('bravo')).map((hit) => hit.text)).toEqual(['bravo checklist attached']);
    // An in-place edit (same message count, as truncating tool outputs does): the old words are gone.
    const current = await store.load('live');
    const edited = current.withMessages(
      current.messages.map((message) =>
        message.id === seeded.messages[0]?.id ? Message.with(message, { content: 'charlie summary only' }) : message,
      ),
    );
    await store.save(edited, { expectedVersion: current.version });
    expect(await handle.recall('alpha')).toEqual([]);
    expect((await handle.recall('charlie')).map((hit) => hit.text)).toEqual(['charlie summary only']);
    // Compaction drops messages.
    const compacted = await store.load('live');
    await store.save(compacted.withMessages(compacted.messages.slice(1)), { expectedVersion: compacted.version });
    expect(await handle.recall('charlie')).toEqual([]);
    expect((await handle.recall('bravo')).map((hit) => hit.text)).toEqual(['bravo checklist attached']);
    // Given to another user: out of u1's recall, in u2's.
    const given = await store.load('live');
    await store.save(given.withUser('u2'), { expectedVersion: given.version });
    expect(await handle.recall('bravo')).toEqual([]);
    expect(
      (await createSessionHandle({ store, sessionId: 'live', userId: 'u2' }).recall('bravo')).map(
        (hit) => hit.sessionId,
      ),
    ).toEqual(['live']);
    await store.delete('live');
    expect(await createSessionHandle({ store, sessionId: 'live', userId: 'u2' }).recall('bravo')).toEqual([]);
  });

  it('never recalls a message of an expired session, before any purge', async () => {
    const store = await stores.open();
    await seedSession(store, 'kept', 'u1', ['Biscuit learned to sit', 'Good dog']);
    const messages = [Message.user('Biscuit ate the birthday cake'), Message.assistant('Oh no')];
    // A second to live: long enough that the recall before it expires is not late on a loaded machine.
    const ttlMs = 1000;
    const saved = Date.now();
    await store.save(Session.create({ id: 'gone', userId: 'u1', messages }), { ttlMs });
    const handle = createSessionHandle({ store, sessionId: 'kept', userId: 'u1' });
    expect((await handle.recall('Biscuit')).map((hit) => hit.sessionId).sort()).toEqual(['gone', 'kept']);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, saved + ttlMs + 30 - Date.now())));
    expect((await handle.recall('Biscuit cake')).map((hit) => hit.sessionId)).toEqual(['kept']);
    expect(
      (
        await createSessionHandle({ store, sessionId: 'kept', userId: 'u1', embed: hashedEmbed() }).recall(
          'Biscuit cake',
        )
      ).map((hit) => hit.sessionId),
    ).toEqual(['kept']);
  });

  it('finds the same after a restart of the store (the index is rebuilt from it)', async () => {
    const store = await stores.open();
    await seedSession(store, 'before', 'u1', ['the quarterly budget was approved', 'great']);
    await createSessionHandle({ store, sessionId: 'before', userId: 'u1' }).remember('prefers metric units');
    const first = await createSessionHandle({ store, sessionId: 'before', userId: 'u1' }).recall('budget metric', {
      k: 10,
    });
    const reopened = await stores.reopen(store);
    const again = await createSessionHandle({ store: reopened, sessionId: 'before', userId: 'u1' }).recall(
      'budget metric',
      { k: 10 },
    );
    expect(again).toEqual(first);
    expect(first.map((hit) => hit.source).sort()).toEqual(['knowledge', 'message']);
  });

  it('with embed, finds meaning without shared words and fuses it with the text rank', async () => {
    const store = await stores.open();
    await seedSession(store, 'beach', 'u1', [
      'My dog loves running on the beach',
      'Sounds fun',
      'The weather was cold',
    ]);
    const plain = createSessionHandle({ store, sessionId: 'beach', userId: 'u1' });
    expect(await plain.recall('canine')).toEqual([]);
    const embed = hashedEmbed();
    const semantic = createSessionHandle({ store, sessionId: 'beach', userId: 'u1', embed });
    const hits = await semantic.recall('canine', { k: 1 });
    expect(hits.map((hit) => hit.text)).toEqual(['My dog loves running on the beach']);
    // Found by the vectors alone, among three messages (too few for a similarity to stand out from
    // chance): still found, with a score far below any text match's.
    expect(hits[0]?.score).toBeGreaterThan(0);
    expect(hits[0]?.score).toBeLessThan(0.01);
    // The text match leads.
    const both = await semantic.recall('dog beach', { k: 3 });
    expectRanked(both);
    expect(both[0]?.text).toBe('My dog loves running on the beach');
    expect(both[0]?.score).toBeGreaterThan(0.5);
  });

  it('with embed, a similarity that stands out from chance lifts the message meant above alike text matches', async () => {
    const store = await stores.open();
    const notes = Array.from({ length: 40 }, (_, index) => `Meeting notes ${index}: budget review and planning`);
    await seedSession(store, 'walks', 'u1', [
      'My dog loves running on the beach',
      ...notes.slice(0, 20),
      'We went to the beach on Sunday',
      'The beach was crowded today',
      ...notes.slice(20),
    ]);
    const texts = async (embed?: Embed): Promise<string[]> =>
      (
        await createSessionHandle({
          store,
          sessionId: 'walks',
          userId: 'u1',
          ...(embed === undefined ? {} : { embed }),
        }).recall('canine on the beach', { k: 3 })
      ).map((hit) => hit.text);
    // Text alone: three messages about the beach, the longest (the dog's) last.
    expect(await texts()).toEqual([
      'The beach was crowded today',
      'We went to the beach on Sunday',
      'My dog loves running on the beach',
    ]);
    // The embedding reads "canine" as "dog": among 43 messages that similarity is beyond chance.
    expect((await texts(hashedEmbed()))[0]).toBe('My dog loves running on the beach');
  });

  it('stores embeddings beside the messages, embeds only new messages, and reuses them after a restart', async () => {
    const store = await stores.open();
    await seedSession(store, 'emb', 'u1', ['first message about gardening', 'second message about tomatoes']);
    const embed = hashedEmbed();
    const handle = createSessionHandle({ store, sessionId: 'emb', userId: 'u1', embed });
    await handle.recall('plants');
    expect(embed.calls).toEqual([['plants'], ['first message about gardening', 'second message about tomatoes']]);
    const stored = await store.values.getAll({ scope: 'session', sessionId: 'emb' });
    expect(Object.keys(stored).every((key) => key.startsWith(`embed/default/${EMBED_DIMENSIONS}/`))).toBe(true);
    expect(Object.keys(stored).length).toBeGreaterThan(0);
    await store.append('emb', [Message.user('third message about compost')]);
    await handle.recall('plants');
    expect(embed.calls.slice(2)).toEqual([['plants'], ['third message about compost']]);
    const reopened = await stores.reopen(store);
    const fresh = hashedEmbed();
    const hits = await createSessionHandle({ store: reopened, sessionId: 'emb', userId: 'u1', embed: fresh }).recall(
      'tomatoes',
      { k: 1 },
    );
    expect(fresh.calls).toEqual([['tomatoes']]);
    expect(hits.map((hit) => hit.text)).toEqual(['second message about tomatoes']);
  });

  it('reports a failing or malformed embed as MODEL_FAILED', async () => {
    const store = await stores.open();
    await seedSession(store, 'bad-embed', 'u1', ['some text']);
    const cases = [
      async () => {
        throw new Error('embedding service down');
      },
      async (texts: readonly string[]) => texts.map(() => [1, 2]).concat([[3, 4]]),
      async (texts: readonly string[]) => texts.map(() => [Number.NaN, 1]),
      // The query's vector and the messages' disagree in length.
      async (texts: readonly string[]) => texts.map((text) => (text === 'text' ? [1, 2] : [1, 2, 3])),
    ];
    for (const embed of cases) {
      await expectRejection(
        createSessionHandle({ store, sessionId: 'bad-embed', userId: 'u1', embed }).recall('text'),
        CollaboratorError,
        'MODEL_FAILED',
      );
    }
  });
}
