/**
 * How recall turns text into index terms: the words of `tokenize` (lowercase letters and digits),
 * without function words, each reduced to its Porter stem, so that "adopted", "adopting" and
 * "adoption" meet at "adopt" (and "drew" at "draw": `irregular.ts`). Questions and messages go through the same analyzer; its stopwords
 * add the words questions are made of ("when", "did", "likely", …), which say what is asked, not
 * what about — "recently" and "lately" among them: a question asking what happened recently is
 * answered by a message that places it in time (`time-intent.ts`), not by another that says "recently".
 * @module
 */
import { stemmer } from 'stemmer';
import { ENGLISH_STOPWORDS, tokenize } from '../text-index.js';
import { baseForm } from './irregular.js';

/** Words left out of recall's terms: common English words and the words that shape a question. */
export const RECALL_STOPWORDS: ReadonlySet<string> = new Set([
  ...ENGLISH_STOPWORDS,
  ...(
    'about after again all also am any anything around because before being both each else even ever ' +
    'few get got going gonna just kind likely lot lots many may maybe might more most much must ' +
    'now off once only other own really same should some something still such sure thing things ' +
    'those though through type up very way ways well whose yes yet ll ve re don didn doesn isn wasn recently lately'
  ).split(' '),
]);

// Stems of recently seen words: stemming is the costliest step of indexing, and words repeat.
const STEMS = new Map<string, string>();
const MAX_CACHED_STEMS = 200_000;

/** The Porter stem of a lowercase `word`, irregular verb forms first taken to their base (words with digits or non-Latin letters are kept whole). */
export function stem(word: string): string {
  let stemmed = STEMS.get(word);
  if (stemmed === undefined) {
    const base = baseForm(word);
    stemmed = /^[a-z]+$/.test(base) ? stemmer(base) : base;
    if (stemmed.length < 2) stemmed = word;
    if (STEMS.size >= MAX_CACHED_STEMS) STEMS.clear();
    STEMS.set(word, stemmed);
  }
  return stemmed;
}

/** The index terms of `text`, in order with repeats: stems of its words, stopwords left out. */
export function analyze(text: string, stopwords: ReadonlySet<string> = RECALL_STOPWORDS): string[] {
  return tokenize(text, stopwords).map(stem);
}
