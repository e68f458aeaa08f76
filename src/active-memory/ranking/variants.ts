/**
 * Lexical variants: a compact list of common English words that name the same thing in other
 * words — informal and formal forms ("kids"/"children", "mom"/"mother"), everyday synonyms
 * ("photo"/"picture", "movie"/"film") — so that a question in one form finds a message in the
 * other. Stemming cannot: the words share no stem. A query term's variants are searched at a
 * lower weight than the term itself (`RankingParams.variant`). The list is general vocabulary of
 * personal conversation, not drawn from any evaluation set's questions; it is small on purpose:
 * every group is a word that can match where it should not.
 * @module
 */
import { stem } from './analyzer.js';

/** Groups of words that stand for one another. */
const GROUPS: readonly string[] = [
  'kid kids child children',
  'mom mum mommy mother',
  'dad daddy father',
  'grandma granny grandmother',
  'grandpa grandfather',
  'parents folks',
  'brother bro',
  'sister sis',
  'husband hubby',
  'friend buddy pal',
  'photo picture pic photograph',
  'movie film',
  'job career occupation',
  'car vehicle',
  'buy purchase',
  'begin start',
  'happy glad',
  'vacation holiday',
  'dog puppy pup',
  'cat kitten',
  'workout exercise',
  'jog jogging running',
  'relax unwind',
  'course class',
  'talk chat',
  // Clippings of chat ("biz", "fest") and British spellings: the same word, another form.
  'business biz',
  'festival fest',
  'favorite favourite fave',
  'congratulations congrats',
  'information info',
  'conversation convo',
  'birthday bday',
  'color colour',
  'theater theatre',
];

const VARIANTS: ReadonlyMap<string, readonly string[]> = (() => {
  const variants = new Map<string, string[]>();
  for (const group of GROUPS) {
    const stems = [...new Set(group.split(' ').map(stem))];
    for (const term of stems) variants.set(term, [...(variants.get(term) ?? []), ...stems.filter((s) => s !== term)]);
  }
  return variants;
})();

/** The stemmed variants of stemmed term `term` (empty when it has none). */
export function variantsOf(term: string): readonly string[] {
  return VARIANTS.get(term) ?? [];
}
