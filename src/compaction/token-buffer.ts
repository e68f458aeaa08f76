/**
 * `tokenBuffer` (Coreason's TOKEN_BUFFER): keep the most recent whole turns that fit in `maxTokens`.
 * A token limit without hysteresis: it compacts down to the limit itself.
 * @module
 */
import { optionsObject, positiveInteger } from './options.js';
import { tokenCompactor } from './token-limit.js';
import type { SyncCompactor } from './types.js';

/** Options of `tokenBuffer`. */
export interface TokenBufferOptions {
  /** Most tokens kept. */
  maxTokens: number;
}

/** Keeps the latest whole turns that fit in `maxTokens` (the latest turn always, even when larger). */
export function tokenBuffer(options: TokenBufferOptions): SyncCompactor {
  const factory = 'tokenBuffer';
  optionsObject(factory, options);
  const max = positiveInteger(factory, 'maxTokens', options.maxTokens);
  return tokenCompactor(factory, max, max);
}
