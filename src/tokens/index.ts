/**
 * Token counting: the `TokenCounter` contract, the default estimate and exact OpenAI counters.
 * @module
 */
import { cachedCounter, createCounter } from './counter.js';
import { estimate, estimateText } from './estimate.js';
import { cl100kBase, o200kBase, openaiCounter } from './openai.js';

export type { TokenCounter, MessageWeights, CreateCounterOptions } from './counter.js';
export type { EstimateWeights } from './estimate.js';
export type { OpenaiEncoding, OpenAIEncoding } from './openai.js';
export type { Usage, RecordedUsage } from './usage.js';
export { DEFAULT_WEIGHTS } from './counter.js';
export { ESTIMATE_WEIGHTS } from './estimate.js';

/** Token counters. */
export const tokens = Object.freeze({
  /** The default: a fast estimate that does not undercount. */
  estimate,
  /** Exact `o200k_base` (GPT-4o and later). */
  o200kBase,
  /** Exact `cl100k_base` (GPT-4, GPT-3.5). */
  cl100kBase,
  /** An exact counter for an OpenAI encoding. */
  openai: openaiCounter,
  /** A counter from your own text counter, cached per message. */
  create: createCounter,
  /** A caching wrapper around any counter. */
  cached: cachedCounter,
  /** The estimate for raw text. */
  estimateText,
});

export { estimate, estimateText, o200kBase, cl100kBase, openaiCounter, createCounter, cachedCounter };
