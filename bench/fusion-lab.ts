/**
 * `npx tsx bench/fusion-lab.ts [--embed=hashed,trigram,simulated 0.15] [--seeds=N]`: recall's fusion
 * of text ranking and embedding beside each alone and beside the rules measured against it, in
 * seconds, with the ranker and the cosines called directly (no store). hit@1/5/10 on the LoCoMo dev
 * split (when `../shared/locomo-dev` exists), on the recall-quality test's synthetic set (seed 7,
 * 3 conversations), on the bench's (seed 2025) and on seeds 1…N (40 by default, 4 conversations
 * each) that no rule was chosen on. Embeddings:
 * - `hashed`: the tests' hashed bag of words (`test/support/hashed-embed.ts`): weak, and on the
 *   synthetic set misleading (its hard decoys share more of the question's words than the facts);
 * - `trigram`: character trigrams hashed into 256 dimensions: lexical, some signal text lacks (word forms);
 * - `simulated S`: not an embedding but similarities made up per question: half the trigram
 *   similarity (the topic), S more for the answering turns, and noise (sd 0.05): a model that knows
 *   the answers, S 0.15 about as good as the text ranking on LoCoMo, 0.25 far better.
 * `≥ both` marks a rule at least as good as text alone and vectors alone at every cut-off.
 * @module
 */
import { FUSED_CANDIDATES, fuseRankings, type FusionInput } from '../src/active-memory/ranking/fusion.js';
import { Ranker } from '../src/active-memory/ranking/ranker.js';
import { cosine, unitVector } from '../src/active-memory/vectors.js';
import { hashedEmbed } from '../test/support/hashed-embed.js';
import { syntheticConversations } from '../test/support/recall-conversations.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { loadLocomo } from './locomo.js';
import { CUTOFFS } from './recall-score.js';

type EmbeddingKind = 'hashed' | 'trigram' | `simulated ${number}`;

interface LabSet {
  readonly name: string;
  readonly conversations: ReadonlyArray<{
    readonly sessions: ReadonlyArray<
      ReadonlyArray<{ readonly id: string; readonly text: string; readonly timestamp: string }>
    >;
    readonly questions: ReadonlyArray<{ readonly question: string; readonly evidence: readonly string[] }>;
  }>;
}

/** One question: what the fusion reads, the answering messages, and every message by similarity. */
interface Case {
  readonly input: FusionInput;
  readonly evidence: ReadonlySet<number>;
  readonly byCosine: readonly number[];
}

/** A fusion rule: the fused order of a question's messages (ids), best first. */
type Rule = (input: FusionInput) => readonly number[];

const hashed = hashedEmbed();

/** Character trigrams of the lowercased words, hashed (FNV-1a) into 256 signed buckets. */
function trigramEmbed(texts: readonly string[]): Float32Array[] {
  return texts.map((text) => {
    const vector = new Float32Array(256);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      const padded = ` ${word} `;
      for (let start = 0; start + 3 <= padded.length; start++) {
        let hash = 0x811c9dc5;
        for (let i = start; i < start + 3; i++) hash = Math.imul(hash ^ padded.charCodeAt(i), 0x01000193) >>> 0;
        vector[hash % 256] = (vector[hash % 256] as number) + (hash & 0x80000000 ? -1 : 1);
      }
    }
    return vector;
  });
}

async function embedAll(kind: EmbeddingKind, texts: readonly string[]): Promise<Float32Array[]> {
  const raw = kind === 'hashed' ? await hashed(texts) : trigramEmbed(texts);
  return raw.map((vector) => unitVector(vector));
}

/** A standard normal draw (Box–Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Every question of `set`, indexed as `Partition` indexes (same ranker, same conversation links). */
async function cases(set: LabSet, kind: EmbeddingKind): Promise<Case[]> {
  const all: Case[] = [];
  const random = seededRandom(99);
  const strength = kind.startsWith('simulated') ? Number(kind.split(' ')[1]) : 0;
  for (const conversation of set.conversations) {
    const ranker = new Ranker();
    const idOf = new Map<string, number>();
    const texts: string[] = [];
    for (const session of conversation.sessions) {
      let after: number | undefined;
      for (const turn of session) {
        texts.push(turn.text);
        const docId = texts.length;
        idOf.set(turn.id, docId);
        const placement = { timestampMs: Date.parse(turn.timestamp), ...(after === undefined ? {} : { after }) };
        if (ranker.add(docId, turn.text, placement)) after = docId;
      }
    }
    const vectors = await embedAll(kind === 'hashed' ? 'hashed' : 'trigram', texts);
    for (const { question, evidence } of conversation.questions) {
      const relevant = new Set(evidence.flatMap((id) => idOf.get(id) ?? []));
      const [query] = await embedAll(kind === 'hashed' ? 'hashed' : 'trigram', [question]);
      const cosines = new Float64Array(texts.length + 1);
      let sum = 0;
      let squares = 0;
      vectors.forEach((vector, index) => {
        const lexical = cosine(query as Float32Array, vector);
        const similarity =
          strength > 0 ? 0.5 * lexical + (relevant.has(index + 1) ? strength : 0) + 0.05 * gaussian(random) : lexical;
        cosines[index + 1] = similarity;
        sum += similarity;
        squares += similarity * similarity;
      });
      const count = texts.length;
      const mean = sum / count;
      const ids = Array.from({ length: count }, (_, index) => index + 1);
      // Vectors alone as the test ranks them: by similarity, ties to the earlier message.
      const byCosine = ids.sort((a, b) => (cosines[b] as number) - (cosines[a] as number) || a - b);
      all.push({
        evidence: relevant,
        byCosine,
        input: {
          text: ranker.search(question, FUSED_CANDIDATES).map((match) => ({ id: match.docId, score: match.score })),
          nearest: byCosine
            .filter((id) => (cosines[id] as number) > 0)
            .slice(0, FUSED_CANDIDATES)
            .map((id) => ({ id, similarity: cosines[id] as number })),
          similarity: (id) => cosines[id],
          stats: { count, mean, spread: Math.sqrt(Math.max(0, squares / count - mean * mean)) },
        },
      });
    }
  }
  return all;
}

/** Ids by score, best first; ties to the higher (newer) id as recall breaks them. */
const ranked = (scores: Iterable<readonly [number, number]>): number[] =>
  [...scores]
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .map(([id]) => id);

/** The former rule: a fixed blend of the text score and the cosine. */
function linear(textWeight: number): Rule {
  return (input) => {
    const scores = new Map<number, number>();
    const cos = (id: number): number => Math.max(0, input.similarity(id) ?? 0);
    for (const { id, score } of input.text) scores.set(id, textWeight * score + (1 - textWeight) * cos(id));
    for (const { id } of input.nearest) if (!scores.has(id)) scores.set(id, (1 - textWeight) * cos(id));
    return ranked(scores);
  };
}

/** Reciprocal-rank fusion with constant `constant`. */
function rrf(constant: number): Rule {
  return (input) => {
    const scores = new Map<number, number>();
    const add = (id: number, value: number): void => void scores.set(id, (scores.get(id) ?? 0) + value);
    input.text.forEach(({ id }, rank) => add(id, 1 / (constant + rank + 1)));
    input.nearest.forEach(({ id }, rank) => add(id, 1 / (constant + rank + 1)));
    return ranked(scores);
  };
}

/** CombMNZ: the sum of the min-max normalised scores times the number of rankings that hold the message. */
const combMnz: Rule = (input) => {
  const normalise = (values: readonly number[]): ((value: number) => number) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return (value) => (high > low ? (value - low) / (high - low) : 1);
  };
  const t = normalise(input.text.map((entry) => entry.score));
  const v = normalise(input.nearest.map((entry) => entry.similarity));
  const sums = new Map<number, [number, number]>();
  for (const { id, score } of input.text) sums.set(id, [t(score), 1]);
  for (const { id, similarity } of input.nearest) {
    const [sum, count] = sums.get(id) ?? [0, 0];
    sums.set(id, [sum + v(similarity), count + 1]);
  }
  return ranked([...sums].map(([id, [sum, count]]) => [id, sum * count] as const));
};

/** Similarity relative to the query's mean (0) and best (1), at most 0 below the mean. */
function relativeSimilarity(input: FusionInput): (id: number) => number {
  const best = input.nearest[0]?.similarity ?? input.stats.mean;
  const scale = best - input.stats.mean || 1;
  return (id) => Math.max(0, ((input.similarity(id) ?? input.stats.mean) - input.stats.mean) / scale);
}

/** Text first, the vectors' say set by how flat the text scores are (the fifth's share of the best). */
function peaked(weight: number): Rule {
  return (input) => {
    const v = relativeSimilarity(input);
    const say = weight * (input.text[4]?.score ?? 0);
    const scores = new Map<number, number>();
    for (const { id, score } of input.text) scores.set(id, score + say * v(id));
    for (const { id } of input.nearest) if (!scores.has(id)) scores.set(id, say * v(id));
    return ranked(scores);
  };
}

/** Text first, the vectors' say set by how many of text's top 10 are among their top 20, beyond chance. */
function agreeing(weight: number): Rule {
  return (input) => {
    const v = relativeSimilarity(input);
    const top = new Set(input.nearest.slice(0, 20).map((entry) => entry.id));
    const shared = input.text.slice(0, 10).filter((entry) => top.has(entry.id)).length;
    const chance = 20 / input.stats.count;
    const say = weight * Math.max(0, (shared / Math.max(1, Math.min(10, input.text.length)) - chance) / (1 - chance));
    const scores = new Map<number, number>();
    for (const { id, score } of input.text) scores.set(id, score + say * v(id));
    for (const { id } of input.nearest) if (!scores.has(id)) scores.set(id, say * v(id));
    return ranked(scores);
  };
}

/** The chosen rule with another weight (what `VECTOR_WEIGHT` is worth around its value). */
function chosenWithWeight(weight: number): Rule {
  return (input) => {
    const level = input.stats.mean + Math.sqrt(2 * Math.log(input.stats.count)) * input.stats.spread;
    const evidence = (similarity = 0): number => Math.max(0, (similarity - level) / input.stats.spread);
    const scores = new Map<number, number>();
    for (const { id, score } of input.text) scores.set(id, score + weight * evidence(input.similarity(id)));
    for (const { id, similarity } of input.nearest)
      if (!scores.has(id)) scores.set(id, weight * (evidence(similarity) + 0.001 * similarity));
    return ranked(scores);
  };
}

const RULES: ReadonlyArray<readonly [string, Rule]> = [
  ['chosen: fuseRankings', (input) => ranked(fuseRankings(input).map(({ id, score }) => [id, score] as const))],
  ['  same, weight 0.15', chosenWithWeight(0.15)],
  ['  same, weight 0.2', chosenWithWeight(0.2)],
  ['  same, weight 0.3', chosenWithWeight(0.3)],
  ['  same, weight 0.5', chosenWithWeight(0.5)],
  ['former: 0.7 text + 0.3 cosine', linear(0.7)],
  ['0.8 text + 0.2 cosine', linear(0.8)],
  ['RRF k=60', rrf(60)],
  ['RRF k=200', rrf(200)],
  ['CombMNZ (min-max)', combMnz],
  ['text + 0.5 × flatness × sim', peaked(0.5)],
  ['text + agreement × sim', agreeing(1)],
  [
    'text, then vectors',
    (input) => [...input.text.map((entry) => entry.id), ...input.nearest.map((entry) => entry.id)],
  ],
];

function hitCounts(all: readonly Case[], order: (one: Case) => readonly number[]): number[] {
  const hits = CUTOFFS.map(() => 0);
  for (const one of all) {
    const ids = order(one);
    CUTOFFS.forEach((k, index) => {
      if (ids.slice(0, k).some((id) => one.evidence.has(id))) hits[index] = (hits[index] as number) + 1;
    });
  }
  return hits;
}

const argument = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const seedCount = Number(argument('seeds') ?? 40);
const kinds = (argument('embed') ?? 'hashed').split(',') as EmbeddingKind[];

const synthetic = (name: string, seeds: readonly number[], count?: number): LabSet => ({
  name,
  conversations: seeds.flatMap((seed) => syntheticConversations(seed, count)),
});
const sets: LabSet[] = [];
const locomo = loadLocomo();
if (locomo !== undefined)
  sets.push({
    name: 'LoCoMo dev',
    conversations: locomo.map((conversation) => ({
      sessions: conversation.sessions.map((session) => session.turns),
      questions: conversation.questions,
    })),
  });
sets.push(synthetic('synthetic seed 7 ×3 (the test)', [7], 3));
sets.push(synthetic('synthetic seed 2025 (the bench)', [2025]));
sets.push(
  synthetic(
    `synthetic seeds 1–${seedCount} (held out)`,
    Array.from({ length: seedCount }, (_, index) => index + 1),
  ),
);

const pct = (hits: number, count: number): string => ((100 * hits) / count).toFixed(1).padStart(5);
for (const kind of kinds) {
  for (const set of sets) {
    const all = await cases(set, kind);
    console.log(`\n${set.name}, ${kind} embedding: ${all.length} questions, hit@${CUTOFFS.join('/')} (% and count)`);
    const rows: Array<readonly [string, number[]]> = [
      ['text alone', hitCounts(all, (one) => one.input.text.map((entry) => entry.id))],
      ['vectors alone', hitCounts(all, (one) => one.byCosine)],
      ...RULES.map(([name, rule]) => [name, hitCounts(all, (one) => rule(one.input))] as const),
    ];
    const text = rows[0]?.[1] ?? [];
    const vectors = rows[1]?.[1] ?? [];
    for (const [name, hits] of rows) {
      const both = hits.every((count, i) => count >= Math.max(text[i] as number, vectors[i] as number));
      console.log(
        `  ${name.padEnd(32)} ${hits.map((count) => pct(count, all.length)).join(' ')}   (${hits.join('/')})${both ? '  ≥ both' : ''}`,
      );
    }
  }
}
