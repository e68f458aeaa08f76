/**
 * Recall quality through `SessionHandle.recall` on a store: each conversation saved as one user's
 * sessions, each question recalled with k = 10, scored by hit@1/5/10 (`recall-score.ts`); and the
 * baseline of the same run, plain Okapi BM25 (k1 1.2, b 0.75, lowercase alphanumeric words, no
 * stemming, no stopwords) over the same turns in process.
 * @module
 */
import { RecallIndex } from '../src/active-memory/recall-index.js';
import { createSessionHandle } from '../src/active-memory/session-handle.js';
import { TextIndex } from '../src/active-memory/text-index.js';
import { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { syntheticConversations } from '../test/support/recall-conversations.js';
import { CATEGORIES, loadLocomo } from './locomo.js';
import type { Ranked } from './recall-score.js';

/** A conversation to recall from, whatever its source. */
export interface QualitySet {
  readonly name: string;
  readonly conversations: ReadonlyArray<{
    readonly sessions: ReadonlyArray<
      ReadonlyArray<{ readonly id: string; readonly text: string; readonly timestamp: string }>
    >;
    readonly questions: ReadonlyArray<{
      readonly question: string;
      readonly category: string;
      readonly evidence: readonly string[];
    }>;
  }>;
}

/** Seed of the synthetic set. */
export const SYNTHETIC_SEED = 2025;

/** The LoCoMo dev split (when `../shared/locomo-dev` exists) and the synthetic set. */
export function qualitySets(): QualitySet[] {
  const sets: QualitySet[] = [];
  const locomo = loadLocomo();
  if (locomo !== undefined)
    sets.push({
      name: 'LoCoMo dev split',
      conversations: locomo.map((conversation) => ({
        sessions: conversation.sessions.map((session) => session.turns),
        questions: conversation.questions.map((question) => ({
          question: question.question,
          category: CATEGORIES[question.category] as string,
          evidence: question.evidence,
        })),
      })),
    });
  sets.push({
    name: `synthetic conversations (seed ${SYNTHETIC_SEED})`,
    conversations: syntheticConversations(SYNTHETIC_SEED).map((conversation) => ({
      sessions: conversation.sessions,
      questions: conversation.questions.map((question) => ({ ...question, category: question.kind })),
    })),
  });
  return sets;
}

/** Every question of `set` recalled through a `SessionHandle` on `store` (k = 10). */
export async function recallThroughStore(store: SessionStore, set: QualitySet, label: string): Promise<Ranked[]> {
  const results: Ranked[] = [];
  for (const [number, conversation] of set.conversations.entries()) {
    const userId = `${label}-user-${number}`;
    const sessionIds = conversation.sessions.map((_, index) => `${label}-c${number}-s${index}`);
    for (const [index, turns] of conversation.sessions.entries()) {
      const messages = turns.map((turn, position) =>
        (position % 2 === 0 ? Message.user : Message.assistant)(turn.text, { id: turn.id, timestamp: turn.timestamp }),
      );
      await store.save(Session.create({ id: sessionIds[index] as string, userId, messages }));
    }
    const handle = createSessionHandle({
      store,
      sessionId: sessionIds.at(-1) as string,
      userId,
      index: new RecallIndex(store),
    });
    for (const question of conversation.questions) {
      const hits = await handle.recall(question.question, { k: 10 });
      results.push({
        category: question.category,
        ranked: hits.map((hit) => hit.messageId),
        evidence: question.evidence,
      });
    }
  }
  return results;
}

/** The baseline: plain BM25 over the same turns, in process. */
export function recallPlainBm25(set: QualitySet): Ranked[] {
  const results: Ranked[] = [];
  for (const conversation of set.conversations) {
    const index = new TextIndex({ stopwords: false });
    const ids: string[] = [];
    for (const turn of conversation.sessions.flat()) {
      index.add(ids.length, turn.text);
      ids.push(turn.id);
    }
    for (const question of conversation.questions)
      results.push({
        category: question.category,
        ranked: index.search(question.question, 10).map((match) => ids[match.docId] as string),
        evidence: question.evidence,
      });
  }
  return results;
}
