/**
 * Exact OpenAI token counts (`o200k_base`, `cl100k_base`) from the `gpt-tokenizer` package. The
 * encodings load on first use (about 0.2 s), so importing chatstate stays cheap.
 * @module
 */
import { createRequire } from 'node:module';
import { createCounter, type TokenCounter } from './counter.js';

/** Encodings with exact counters. */
export type OpenaiEncoding = 'o200k_base' | 'cl100k_base';

/** @deprecated Use `OpenaiEncoding` (acronyms are words in chatstate's names). */
export type OpenAIEncoding = OpenaiEncoding;

interface EncodingModule {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

const require = createRequire(import.meta.url);
// Text that contains "<|endoftext|>" is counted as plain text, never rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function load(encoding: OpenaiEncoding): EncodingModule {
  return require(`gpt-tokenizer/cjs/encoding/${encoding}`) as EncodingModule;
}

/** An exact counter for an OpenAI encoding, with per-message caching. */
export function openaiCounter(encoding: OpenaiEncoding): TokenCounter {
  let module: EncodingModule | undefined;
  return createCounter({
    name: encoding,
    countText(text: string): number {
      module ??= load(encoding);
      return module.countTokens(text, PLAIN_TEXT);
    },
  });
}

/** Exact counter for GPT-4o, GPT-4.1, o-series and later models. */
export const o200kBase: TokenCounter = openaiCounter('o200k_base');
/** Exact counter for GPT-4 and GPT-3.5 models. */
export const cl100kBase: TokenCounter = openaiCounter('cl100k_base');
