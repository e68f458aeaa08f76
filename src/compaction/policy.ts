/**
 * Coreason's named memory strategies for `session.prune({ strategy, limit })`, resolved to
 * built-in compactors through the strategy registry. Strategies that need a collaborator refuse to
 * run without it (Coreason's silently did nothing).
 * @module
 */
import type { TokenCounter } from '../tokens/counter.js';
import { invalidOption, positiveInteger } from './options.js';
import { pruneStrategy, type StrategySpec } from './strategy-registry.js';
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

/**
 * Resolves a policy to a compactor; throws `INVALID_ARGUMENT` (an unknown strategy, listing the
 * known ones; a limit that is not a positive integer) or `MISSING_COLLABORATOR`.
 */
export function resolvePrunePolicy(policy: SyncPrunePolicy): SyncCompactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor {
  if (typeof policy !== 'object' || policy === null) throw invalidOption('prune', 'policy', 'an object', policy);
  const { strategy } = policy;
  const named = pruneStrategy(strategy);
  if (named.needs === undefined) return named.build({ strategy });
  const { limit, counter, summarizer, archive } = policy as { limit?: unknown } & StrategySpec;
  // The policy's one `limit` is the limit its strategy needs (turns or tokens).
  return named.build({
    strategy,
    [named.needs]: positiveInteger(strategy, 'limit', limit),
    ...(counter === undefined ? {} : { counter }),
    ...(summarizer === undefined ? {} : { summarizer }),
    ...(archive === undefined ? {} : { archive }),
  });
}
