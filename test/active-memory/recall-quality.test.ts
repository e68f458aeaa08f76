/**
 * Recall quality on seeded synthetic conversations (`test/support/recall-conversations.ts`), through
 * `SessionHandle.recall` on the embedded stores: every store ranks alike, the ranking finds what
 * plain BM25 cannot, and with `embed` the fused ranking finds at every cut-off at least what text
 * alone and vectors alone find (`bench/fusion-lab.ts` measures the same on more sets and embeddings).
 */
import { describe, expect, it } from 'vitest';
import { RecallIndex } from '../../src/active-memory/recall-index.js';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { TextIndex } from '../../src/active-memory/text-index.js';
import type { Embed } from '../../src/active-memory/types.js';
import { unitVector, cosine } from '../../src/active-memory/vectors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { syntheticConversations, type SyntheticConversation } from '../support/recall-conversations.js';
import { hashedEmbed, memorySubject, sqliteSubject, storesOf } from './harness.js';

const K = 5;
/** The cut-offs the fused ranking is held to. */
const CUTOFFS = [1, 5, 10] as const;

interface Asked {
  readonly question: string;
  readonly evidence: readonly string[];
  readonly ranked: readonly string[];
}

async function save(store: SessionStore, conversation: SyntheticConversation, userId: string): Promise<string> {
  let last = '';
  for (const [index, turns] of conversation.sessions.entries()) {
    last = `${userId}-s${index}`;
    const messages = turns.map((turn, position) =>
      (position % 2 === 0 ? Message.user : Message.assistant)(turn.text, { id: turn.id, timestamp: turn.timestamp }),
    );
    await store.save(Session.create({ id: last, userId, messages }));
  }
  return last;
}

async function askAll(
  store: SessionStore,
  conversations: readonly SyntheticConversation[],
  embed?: Embed,
  k = K,
): Promise<Asked[]> {
  const asked: Asked[] = [];
  for (const [number, conversation] of conversations.entries()) {
    const userId = `u${number}`;
    const sessionId = await save(store, conversation, userId);
    const handle = createSessionHandle({
      store,
      sessionId,
      userId,
      index: new RecallIndex(store),
      ...(embed === undefined ? {} : { embed }),
    });
    for (const { question, evidence } of conversation.questions) {
      const hits = await handle.recall(question, { k });
      asked.push({ question, evidence, ranked: hits.map((hit) => hit.messageId) });
    }
  }
  return asked;
}

/** Questions with an answer among the first `k` ranked. */
const hits = (asked: readonly Asked[], k = K): number =>
  asked.filter((one) => one.ranked.slice(0, k).some((id) => one.evidence.includes(id))).length;

describe('recall quality on synthetic conversations', () => {
  const conversations = syntheticConversations(7, 3);
  const memory = storesOf(memorySubject());
  const sqlite = storesOf(sqliteSubject());

  it('ranks the same top k on the memory and SQLite stores, and finds what plain BM25 misses', async () => {
    {
      const inMemory = await askAll(await memory.open(), conversations);
      const inSqlite = await askAll(await sqlite.open(), conversations);
      expect(inSqlite).toEqual(inMemory);
      let plain = 0;
      for (const conversation of conversations) {
        const index = new TextIndex({ stopwords: false });
        const ids: string[] = [];
        for (const turn of conversation.sessions.flat()) {
          index.add(ids.length, turn.text);
          ids.push(turn.id);
        }
        for (const { question, evidence } of conversation.questions)
          if (index.search(question, K).some((match) => evidence.includes(ids[match.docId] as string))) plain += 1;
      }
      const total = inMemory.length;
      expect(hits(inMemory) / total).toBeGreaterThanOrEqual(0.9);
      expect(hits(inMemory)).toBeGreaterThan(plain + total / 4);
    }
  });

  it('with embed, the fused ranking finds at least what text or vectors alone find', async () => {
    {
      const embed = hashedEmbed();
      const deepest = CUTOFFS[CUTOFFS.length - 1];
      const text = await askAll(await memory.open(), conversations, undefined, deepest);
      const fused = await askAll(await memory.open(), conversations, embed, deepest);
      // Vectors alone: the same embedding's cosine ranking over every turn of the conversation.
      const vectors: Asked[] = [];
      for (const conversation of conversations) {
        const turns = conversation.sessions.flat();
        const turnVectors = (await embed(turns.map((turn) => turn.text))).map((vector) => unitVector(vector));
        for (const { question, evidence } of conversation.questions) {
          const query = unitVector(((await embed([question])) as ArrayLike<number>[])[0] as ArrayLike<number>);
          const ranked = turns
            .map((turn, index) => ({ id: turn.id, similarity: cosine(query, turnVectors[index] as Float32Array) }))
            .sort((a, b) => b.similarity - a.similarity)
            .slice(0, deepest)
            .map((entry) => entry.id);
          vectors.push({ question, evidence, ranked });
        }
      }
      // The hashed bag-of-words embedding favours the hard decoys (they share more of the question's
      // words than the facts do): fused with a fixed weight it cost the text ranking questions here.
      for (const k of CUTOFFS) {
        expect(hits(fused, k), `hit@${k}`).toBeGreaterThanOrEqual(hits(text, k));
        expect(hits(fused, k), `hit@${k}`).toBeGreaterThanOrEqual(hits(vectors, k));
      }
      expect(hits(vectors)).toBeLessThan(vectors.length);
    }
  });
});
