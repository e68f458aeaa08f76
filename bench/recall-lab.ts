/**
 * `npx tsx bench/recall-lab.ts ['{"context":0.3}' …] [--misses]`: recall quality on the LoCoMo dev
 * split with the in-process ranker called directly (no store), beside plain BM25, in seconds — for
 * trying ranking parameters (one line per parameter set when given several). The figures that count
 * are the bench's (`npm run bench -- recall`), through stores.
 * @module
 */
import { DEFAULT_RANKING, Ranker, type RankingParams } from '../src/active-memory/ranking/ranker.js';
import { TextIndex } from '../src/active-memory/text-index.js';
import { CATEGORIES, loadLocomo } from './locomo.js';
import { CUTOFFS, hitRates, type Ranked } from './recall-score.js';

const conversations = loadLocomo();
if (conversations === undefined) throw new Error('no ../shared/locomo-dev here');
const verbose = process.argv.includes('--misses');
const sets = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (sets.length === 0) sets.push('{}');

const pct = (hits: number, count: number): string => `${((100 * hits) / count).toFixed(1)}`.padStart(5);

function run(params: RankingParams, plainToo: boolean): { ours: Ranked[]; plain: Ranked[] } {
  const ours: Ranked[] = [];
  const plain: Ranked[] = [];
  for (const conversation of conversations ?? []) {
    const ranker = new Ranker(params);
    const bm25 = new TextIndex({ stopwords: false });
    const ids: string[] = [''];
    for (const session of conversation.sessions) {
      let after: number | undefined;
      for (const turn of session.turns) {
        const docId = ids.length;
        ids.push(turn.id);
        ranker.add(docId, turn.text, {
          timestampMs: Date.parse(turn.timestamp),
          ...(after === undefined ? {} : { after }),
        });
        if (plainToo) bm25.add(docId, turn.text);
        after = docId;
      }
    }
    const text = new Map(conversation.sessions.flatMap((s) => s.turns.map((t) => [t.id, t.text] as const)));
    for (const question of conversation.questions) {
      const category = CATEGORIES[question.category] as string;
      const ranked = ranker.search(question.question, 10).map((match) => ids[match.docId] as string);
      ours.push({ category, ranked, evidence: question.evidence });
      if (plainToo)
        plain.push({
          category,
          ranked: bm25.search(question.question, 10).map((match) => ids[match.docId] as string),
          evidence: question.evidence,
        });
      if (verbose && !ranked.slice(0, 5).some((id) => question.evidence.includes(id)))
        console.log(
          `MISS [${category}] ${question.question}\n  want: ${question.evidence.map((id) => text.get(id)).join(' || ')}\n  got:  ${ranked
            .slice(0, 2)
            .map((id) => text.get(id))
            .join(' || ')}`,
        );
    }
  }
  return { ours, plain };
}

if (sets.length === 1) {
  const { ours, plain } = run(
    { ...DEFAULT_RANKING, ...(JSON.parse(sets[0] as string) as Partial<RankingParams>) },
    true,
  );
  const a = hitRates(ours);
  const b = hitRates(plain);
  for (const group of [...Object.values(CATEGORIES), 'overall']) {
    const x = a.get(group);
    const y = b.get(group);
    if (x === undefined || y === undefined) continue;
    console.log(
      `${group.padEnd(12)} n=${String(x.count).padStart(3)}  ours ${CUTOFFS.map((_, i) => pct(x.hits[i] as number, x.count)).join(' ')}   plain ${CUTOFFS.map((_, i) => pct(y.hits[i] as number, y.count)).join(' ')}`,
    );
  }
} else {
  for (const set of sets) {
    const rates = hitRates(run({ ...DEFAULT_RANKING, ...(JSON.parse(set) as Partial<RankingParams>) }, false).ours);
    const all = rates.get('overall');
    if (all === undefined) continue;
    const cats = Object.values(CATEGORIES)
      .map((group) => {
        const x = rates.get(group);
        return x === undefined ? '' : `${group.slice(0, 4)} ${pct(x.hits[1] as number, x.count)}`;
      })
      .join(' ');
    console.log(`${CUTOFFS.map((_, i) => pct(all.hits[i] as number, all.count)).join(' ')} | @5 ${cats} | ${set}`);
  }
}
