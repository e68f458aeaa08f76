/**
 * Words near a query word the index has never seen: a typo of a known word ("fesetival",
 * "educaton"), its short form ("edu", "fest"), or two known words written as one ("roadtrip"). Only unknown query words are
 * looked up, so a well-spelled query pays nothing; the lookup scans the index's vocabulary, which
 * grows with the square root of the text (Heaps' law), not with the messages.
 * @module
 */

/** Shortest unknown word looked up: shorter ones have too many neighbours to mean anything. */
const MIN_LENGTH = 5;
/** Shortest part of a split compound. */
const MIN_PART = 3;

/** Edits allowed for a word of `length` characters: one for short words, two from eight. */
function editsFor(length: number): number {
  return length >= 8 ? 2 : 1;
}

/**
 * Optimal string alignment distance of `a` and `b` (insertions, deletions, substitutions and
 * swaps of neighbours), or `max + 1` as soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before = new Int32Array(b.length + 1);
  let row = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  let next = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    next[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        value = Math.min(value, (before[j - 2] as number) + 1);
      next[j] = value;
      if (value < least) least = value;
    }
    if (least > max) return max + 1;
    [before, row, next] = [row, next, before];
  }
  return row[b.length] as number;
}

/**
 * The known words standing for unknown `word`: those within its edit allowance (the closest
 * only), and the two halves of a split into known words or else its known heads. `known(w)` says whether `w` is indexed.
 */
export function nearWords(word: string, vocabulary: Iterable<string>, known: (word: string) => boolean): string[] {
  if (word.length < MIN_LENGTH || !/^[a-z]+$/.test(word)) return [];
  const max = editsFor(word.length);
  let closest = max + 1;
  let found: string[] = [];
  for (const candidate of vocabulary) {
    if (candidate.length < MIN_LENGTH - 1 || Math.abs(candidate.length - word.length) > max) continue;
    // Typos rarely change a word's first letter; requiring it keeps the scan cheap and the matches sane.
    if (candidate.charCodeAt(0) !== word.charCodeAt(0)) continue;
    const distance = editDistance(word, candidate, Math.min(max, closest));
    if (distance < closest) {
      closest = distance;
      found = [candidate];
    } else if (distance === closest && distance <= max) found.push(candidate);
  }
  for (let split = MIN_PART; split <= word.length - MIN_PART; split++) {
    const head = word.slice(0, split);
    const tail = word.slice(split);
    if (known(head) && known(tail)) return [...found, head, tail];
  }
  // A known head of the word may be its short form ("edu" for "education", "fest" for "festivals").
  for (let end = word.length - 1; end >= MIN_PART; end--) {
    const head = word.slice(0, end);
    if (known(head) && !found.includes(head)) found.push(head);
  }
  return found;
}
