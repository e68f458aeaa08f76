/**
 * The default counter: a fast estimate with no tokenizer. Plain characters/4 undercounts code and
 * JSON (by about 14% on a typical agent history), which overfills a budget; this one scans the text
 * once and prices each kind of run the way BPE tokenizers split it, so that it does not undercount.
 * The weights are fitted against `o200k_base` by `npm run bench` (see bench/RESULTS.md).
 * @module
 */
import { createCounter, type TokenCounter } from './counter.js';

/** Tunable prices of the estimate, in tokens. */
export interface EstimateWeights {
  /** Letters a word token covers; longer words cost one more token per this many letters. */
  lettersPerToken: number;
  /** Digits per token (o200k splits numbers into groups of three). */
  digitsPerToken: number;
  /** Punctuation characters per token. */
  punctuationPerToken: number;
  /** Cost of a run of line breaks or of two or more spaces (indentation). */
  whitespaceRun: number;
  /** Cost of one character outside Latin scripts (CJK, emoji halves, symbols). */
  otherChar: number;
  /** Final multiplier, a safety margin. */
  scale: number;
}

/** Weights fitted on the benchmark corpus (prose, code, JSON tool calls and outputs). */
export const ESTIMATE_WEIGHTS: EstimateWeights = Object.freeze({
  lettersPerToken: 6,
  digitsPerToken: 3,
  punctuationPerToken: 1.6,
  whitespaceRun: 1,
  otherChar: 1,
  scale: 1.0,
});

const enum Kind {
  None,
  Letter,
  Digit,
  Punct,
  Space,
}

/** Estimated tokens in `text` under `weights`. */
export function estimateText(text: string, weights: EstimateWeights = ESTIMATE_WEIGHTS): number {
  let tokens = 0;
  let run = 0;
  let kind = Kind.None;
  let spaces = 0;
  const flush = (): void => {
    if (run === 0) return;
    if (kind === Kind.Letter) tokens += Math.ceil(run / weights.lettersPerToken);
    else if (kind === Kind.Digit) tokens += Math.ceil(run / weights.digitsPerToken);
    else if (kind === Kind.Punct) tokens += Math.ceil(run / weights.punctuationPerToken);
    run = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let next: Kind;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0x24f)) next = Kind.Letter;
    else if (c >= 48 && c <= 57) next = Kind.Digit;
    else if (c === 32) {
      // One space merges into the next word; longer runs (indentation) are tokens of their own.
      spaces += 1;
      if (spaces === 2) tokens += weights.whitespaceRun;
      flush();
      kind = Kind.Space;
      continue;
    } else if (c === 10 || c === 13 || c === 9) {
      if (kind !== Kind.Space || spaces < 2) tokens += weights.whitespaceRun;
      spaces = 2;
      flush();
      kind = Kind.Space;
      continue;
    } else if (c < 128) next = Kind.Punct;
    else {
      flush();
      tokens += weights.otherChar;
      kind = Kind.None;
      spaces = 0;
      continue;
    }
    if (next !== kind) {
      flush();
      kind = next;
    }
    spaces = 0;
    run += 1;
  }
  flush();
  return Math.ceil(tokens * weights.scale);
}

/** The default counter: `estimateText` plus per-message overhead, cached per message. */
export const estimate: TokenCounter = createCounter({ name: 'estimate', countText: (text) => estimateText(text) });
