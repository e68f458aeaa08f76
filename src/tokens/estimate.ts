/**
 * The default counter: a fast estimate with no tokenizer. Plain characters/4 undercounts JSON
 * (tool outputs by about 17% on the bench corpus) and dense code, which overfills a budget; this
 * one scans the text once and mimics how BPE tokenizers pre-split text (words, camelCase parts,
 * groups of three digits, punctuation runs, line breaks, indentation), pricing each piece, so that
 * it overcounts slightly instead. The weights are fitted against `o200k_base` on the bench corpus
 * (`npm run bench` reports the error per kind of content in bench/RESULTS.md).
 * @module
 */
import { createCounter, type TokenCounter } from './counter.js';

/** Tunable prices of the estimate, in tokens. */
export interface EstimateWeights {
  /** Letters a word covers in one token (common English words up to this length are one token). @default 8 */
  wordLetters: number;
  /** Letters per additional token of a word longer than `wordLetters`. @default 4 */
  lettersPerToken: number;
  /** Like `wordLetters`, for words with non-ASCII letters (accents, Cyrillic, Greek, Arabic…), which vocabularies cover less. @default 2 */
  foreignWordLetters: number;
  /** Like `lettersPerToken`, for words with non-ASCII letters. @default 3 */
  foreignLettersPerToken: number;
  /** Digits per token (o200k splits numbers into groups of three). @default 3 */
  digitsPerToken: number;
  /** Cost of a run of punctuation such as `":"`, `});` or `{` plus its line break. @default 1 */
  punctuationRun: number;
  /** Punctuation characters per additional token, beyond the first two of a run. @default 4 */
  punctuationPerToken: number;
  /** Cost of one punctuation character glued to the word after it (`.length`, `_id`, `/src`). @default 0.4 */
  wordPrefix: number;
  /** Cost of a line break that does not follow punctuation, of indentation, or of the space before a number. @default 1 */
  whitespaceRun: number;
  /** Cost of one character outside alphabetic scripts (CJK, emoji halves, symbols). @default 1 */
  otherChar: number;
  /** Final multiplier, a safety margin so that the estimate errs on the side of overcounting. @default 1.03 */
  scale: number;
}

/**
 * Weights fitted on the benchmark corpus (prose, code, JSON tool calls and outputs) against `o200k_base`.
 * The piece prices follow o200k's pre-tokenizer; `wordPrefix`, `punctuationPerToken` and `scale`
 * were fitted on the tuning seed of the corpus (not the reported one) and checked on real
 * READMEs, TypeScript, JavaScript, JSON and Python files, which it overcounts by 0 to 5%.
 */
export const ESTIMATE_WEIGHTS: EstimateWeights = Object.freeze({
  wordLetters: 8,
  lettersPerToken: 4,
  foreignWordLetters: 2,
  foreignLettersPerToken: 3,
  digitsPerToken: 3,
  punctuationRun: 1,
  punctuationPerToken: 4,
  wordPrefix: 0.4,
  whitespaceRun: 1,
  otherChar: 1,
  scale: 1.03,
});

// What the scanner is in the middle of.
const NONE = 0;
const WORD = 1;
const DIGITS = 2;
const PUNCT = 3;
const BREAK = 4;

// Character classes; ASCII is looked up in a table, the hot path of every scan.
const PUNCTUATION = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const LETTER = 6;
const OTHER = 7;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 97 && c <= 122) ASCII_CLASS[c] = LOWER;
  else if (c >= 65 && c <= 90) ASCII_CLASS[c] = UPPER;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = DIGIT;
  else if (c === 32 || c === 9) ASCII_CLASS[c] = SPACE;
  else if (c === 10 || c === 13) ASCII_CLASS[c] = NEWLINE;
  else ASCII_CLASS[c] = PUNCTUATION;
}

// Lengths of whitespace runs that o200k_base still merges into one token (measured: runs of 10,000
// characters cost about 627 tokens of tabs or line feeds, 81 of spaces and 2,500 of "\r\n").
const LONG_TABS = 16;
const LONG_SPACES = 128;
const LONG_FEEDS = 16;
const LONG_RETURNS = 4;

/** Class of a non-ASCII character: letters of Latin (accented), Greek, Cyrillic … scripts up to U+1FFF, or other. */
function nonAsciiClass(c: number): number {
  if (c >= 0xc0 && c <= 0x24f) return c === 0xd7 || c === 0xf7 ? OTHER : LETTER;
  return c >= 0x370 && c < 0x2000 ? LETTER : OTHER;
}

function wordCost(letters: number, foreign: boolean, weights: EstimateWeights): number {
  const covered = foreign ? weights.foreignWordLetters : weights.wordLetters;
  if (letters <= covered) return 1;
  return 1 + (letters - covered) / (foreign ? weights.foreignLettersPerToken : weights.lettersPerToken);
}

function punctuationCost(length: number, weights: EstimateWeights): number {
  return length > 2 ? weights.punctuationRun + (length - 2) / weights.punctuationPerToken : weights.punctuationRun;
}

/**
 * Estimated tokens in `text` under `weights`: one pass over the characters, no allocation.
 * The rules follow the pre-tokenizer of `o200k_base`: a space or a single punctuation character
 * joins the word after it, camelCase and acronym boundaries split words, numbers split into
 * groups of three digits (and the space before a number is a token of its own), a punctuation
 * run absorbs the line break right after it, and indentation is one token per line.
 */
export function estimateText(text: string, weights: EstimateWeights = ESTIMATE_WEIGHTS): number {
  let tokens = 0;
  let run = NONE;
  // Letters of the current word part, digits of the number, or characters of the punctuation run.
  let length = 0;
  let foreign = false;
  let afterLower = false;
  let upperRun = 0;
  let spaces = 0;
  // Tabs in the current whitespace run, and line feeds / carriage returns in the current line-break run.
  let tabs = 0;
  let feeds = 0;
  let returns = 0;
  let spacedPunct = false;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const type = c < 128 ? (ASCII_CLASS[c] as number) : nonAsciiClass(c);
    if (type === LOWER || type === UPPER || type === LETTER) {
      const upper = type === UPPER;
      if (run === WORD) {
        if (upper) {
          if (afterLower) {
            // camelCase: "cacheTotal" is "cache" + "Total".
            tokens += wordCost(length, foreign, weights);
            length = 0;
            foreign = false;
          }
        } else if (upperRun >= 2) {
          // An acronym before a word: "JSONParser" is "JSON" + "Parser".
          tokens += wordCost(length - 1, foreign, weights);
          length = 1;
          foreign = false;
        }
      } else {
        // A single punctuation character right after a word or number joins this word (".length");
        // after a space it does not (` "name` is ` "` + `name`).
        if (run === PUNCT)
          tokens += length === 1 && !spacedPunct ? weights.wordPrefix : punctuationCost(length, weights);
        else if (run === DIGITS) tokens += Math.ceil(length / weights.digitsPerToken);
        run = WORD;
        length = 0;
        foreign = false;
      }
      length += 1;
      if (type === LETTER) foreign = true;
      upperRun = upper ? upperRun + 1 : 0;
      afterLower = !upper;
      spaces = 0;
      continue;
    }
    if (run === WORD) {
      tokens += wordCost(length, foreign, weights);
      run = NONE;
      upperRun = 0;
      afterLower = false;
    }
    if (type === DIGIT) {
      if (run !== DIGITS) {
        if (run === PUNCT) tokens += punctuationCost(length, weights);
        // Numbers never absorb the space before them.
        if (spaces > 0) tokens += weights.whitespaceRun;
        run = DIGITS;
        length = 0;
      }
      length += 1;
      spaces = 0;
      continue;
    }
    if (run === DIGITS) {
      tokens += Math.ceil(length / weights.digitsPerToken);
      run = NONE;
    }
    if (type === PUNCTUATION) {
      if (run !== PUNCT) {
        run = PUNCT;
        length = 0;
        spacedPunct = spaces > 0;
      }
      length += 1;
      spaces = 0;
      continue;
    }
    if (type === SPACE) {
      if (run === PUNCT) tokens += punctuationCost(length, weights);
      run = NONE;
      spaces += 1;
      if (spaces === 1) tabs = 0;
      if (c === 9) tabs += 1;
      // One space joins the next piece; a longer run (indentation) is a token of its own.
      if (spaces === 2) tokens += weights.whitespaceRun;
      // A long run is not one token: o200k merges at most about 16 tabs or 128 spaces into one.
      else if (c === 9 ? tabs % LONG_TABS === 0 : (spaces - tabs) % LONG_SPACES === 0) tokens += weights.whitespaceRun;
      continue;
    }
    if (type === NEWLINE) {
      // "{\n", ",\n": a line break right after punctuation belongs to it; "\n\n" is one token.
      if (run === PUNCT) tokens += punctuationCost(length, weights);
      else if (run !== BREAK) tokens += weights.whitespaceRun;
      if (run !== BREAK) {
        feeds = 0;
        returns = 0;
      }
      // Nor is a long run of line breaks: about 16 line feeds a token, and "\r\n\r\n…" a token per two lines.
      if (c === 10 && ++feeds % LONG_FEEDS === 0) tokens += weights.whitespaceRun;
      else if (c === 13 && ++returns > LONG_RETURNS && returns % LONG_RETURNS === 0) tokens += weights.whitespaceRun;
      run = BREAK;
      spaces = 0;
      continue;
    }
    if (run === PUNCT) tokens += punctuationCost(length, weights);
    run = NONE;
    tokens += weights.otherChar;
    spaces = 0;
  }
  if (run === WORD) tokens += wordCost(length, foreign, weights);
  else if (run === DIGITS) tokens += Math.ceil(length / weights.digitsPerToken);
  else if (run === PUNCT) tokens += punctuationCost(length, weights);
  // A lone trailing space has no next piece to join.
  else if (spaces === 1) tokens += weights.whitespaceRun;
  // Rounding (not ceiling): a one-token text is one token, and the error does not grow with the number of texts.
  return Math.round(tokens * weights.scale);
}

/** The default counter: `estimateText` plus per-message overhead, cached per message. */
export const estimate: TokenCounter = createCounter({ name: 'estimate', countText: (text) => estimateText(text) });
