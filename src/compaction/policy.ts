/**
 * Coreason's named memory strategies for `session.prune({ strategy, limit })`, resolved to
 * built-in compactors. Strategies that need a collaborator refuse to run without it (Coreason's
 * silently did nothing).
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { Archive, Compactor, Summarizer, SyncCompactor } from './types.js';

/** A named pruning policy (Coreason's MemoryStrategy). */
export type PrunePolicy =
  | { strategy: 'all' }
  | { strategy: 'sliding_window'; limit: number }
  | { strategy: 'token_buffer'; limit: number; counter?: TokenCounter }
  | { strategy: 'summary'; limit: number; summarizer?: Summarizer }
  | { strategy: 'vector_store'; limit: number; archive?: Archive };

/** The policies that complete synchronously. */
export type SyncPrunePolicy = Extract<PrunePolicy, { strategy: 'all' | 'sliding_window' | 'token_buffer' }>;

/** Resolves a policy to a compactor; throws `INVALID_ARGUMENT` or `MISSING_COLLABORATOR`. */
export function resolvePrunePolicy(policy: SyncPrunePolicy): SyncCompactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor {
  void policy;
  throw new InvalidInputError('INVALID_ARGUMENT', 'not implemented yet');
}
