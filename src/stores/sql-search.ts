/**
 * What the SQL drivers (SQLite, Postgres) share for active memory: how message text is folded
 * before it is indexed and searched, how a user's query is split into plain words (never passed
 * through as query syntax), how relevance is normalized, and which value namespaces belong to a
 * session.
 * @module
 */

/**
 * Characters of one message that are indexed. A huge tool result stays storable (Postgres refuses
 * a tsvector over 1 MB) and the index stays proportionate; words past this point are not found.
 */
export const MAX_INDEXED_CHARS = 100_000;

/** Distinct words of a query that are searched; the rest are ignored (a pasted page stays a cheap query). */
export const MAX_QUERY_TERMS = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as both SQL stores index it and match it: well-formed (a lone surrogate would be stored as
 * something else), NFKC (full-width and composed forms match their plain forms), lower case in
 * JavaScript (Postgres lowercases only ASCII under the C locale), without NUL (Postgres text cannot
 * hold it). Long texts keep their first `MAX_INDEXED_CHARS` characters.
 */
export function foldText(text: string): string {
  return text
    .slice(0, MAX_INDEXED_CHARS)
    .replace(LONE_SURROGATE, '\uFFFD')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\0/g, ' ');
}

// Letters, digits and combining marks: every other character separates words, so quotes, `*`,
// `:`, parentheses and the like are never part of what reaches a query language.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The distinct words of a query, folded, in order of first appearance, at most `MAX_QUERY_TERMS`
 * (SQLite quotes each one; Postgres instead parses the folded query with the parser that indexed
 * the messages, so "example.com" stays one word there, and quotes each lexeme).
 */
export function searchTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const match of foldText(text).matchAll(WORD)) {
    terms.add(match[0]);
    if (terms.size === MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

/**
 * Scores relative to the best hit: `raw / best`, so the best hit scores 1 and every other its
 * fraction of the best, in (0, 1]. `raw` is "higher is better" and ordered best first; a
 * non-positive raw value (which neither backend gives for a real match) is floored at a tiny positive score.
 */
export function relativeScores(raw: readonly number[]): number[] {
  const best = raw[0] ?? 0;
  return raw.map((value) => (best > 0 && value > 0 ? Math.min(1, value / best) : Number.MIN_VALUE));
}

/**
 * The value namespaces of session `id` as a key range: `session:<id>` itself and every
 * `session:<id>/…`. Stores select `ns >= exact AND ns < end AND (ns = exact OR ns >= children)`, one
 * index range scan on a code-point-ordered column: no LIKE, so `%` or `_` in an id match only
 * themselves. (`/` is U+002F and `0` is U+0030: every `session:<id>/…` sorts below `session:<id>0`.)
 */
export function sessionNamespaces(id: string): { exact: string; children: string; end: string } {
  const exact = `session:${id}`;
  return { exact, children: `${exact}/`, end: `${exact}0` };
}
