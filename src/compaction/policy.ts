/**
 * Coreason's named memory strategies for `session.prune({ strategy, limit })`, resolved to
 * built-in compactors. Strategies that need a collaborator refuse to run without it (Coreason's
 * silently did nothing).
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { TokenCounter } from '../tokens/counter.js';
import { offload } from './offload.js';
import { invalidOption, positiveInteger } from './options.js';
import { prepare, unchanged } from './report.js';
import { slidingWindow } from './sliding-window.js';
import { summarize } from './summarize.js';
import { tokenBuffer } from './token-buffer.js';
import type { Archive, CompactionInput, CompactionResult, Compactor, Summarizer, SyncCompactor } from './types.js';

/** A named pruning policy (Coreason's MemoryStrategy). */
export type PrunePolicy =
  | { strategy: 'all' }
  | { strategy: 'sliding_window'; limit: number }
  | { strategy: 'token_buffer'; limit: number; counter?: TokenCounter }
  | { strategy: 'summary'; limit: number; summarizer?: Summarizer }
  | { strategy: 'vector_store'; limit: number; archive?: Archive };

/** The policies that complete synchronously. */
export type SyncPrunePolicy = Extract<PrunePolicy, { strategy: 'all' | 'sliding_window' | 'token_buffer' }>;

/** Coreason's ALL: keeps the whole history. */
const keepAll: SyncCompactor = Object.freeze({
  name: 'all',
  shouldCompact: (): boolean => false,
  compact(input: CompactionInput): CompactionResult {
    const prepared = prepare(input);
    return unchanged(prepared.messages, 'all', prepared.total, true);
  },
});

function missing(strategy: string, option: string, example: string): InvalidInputError {
  const hint = `pass { strategy: '${strategy}', limit, ${option}: ${example} }`;
  return new InvalidInputError('MISSING_COLLABORATOR', `The ${strategy} prune policy needs a ${option}: ${hint}`, {
    details: { strategy, option },
  });
}

/** A compactor that counts with `counter` whatever counter its input carries. */
function withCounter(compactor: SyncCompactor, counter: TokenCounter): SyncCompactor {
  if (typeof counter !== 'object' || counter === null || typeof counter.countMessage !== 'function') {
    throw invalidOption('token_buffer', 'counter', 'a TokenCounter', counter);
  }
  return Object.freeze({
    name: compactor.name,
    shouldCompact: (input: CompactionInput): boolean => compactor.shouldCompact({ ...input, counter }),
    compact: (input: CompactionInput): CompactionResult => compactor.compact({ ...input, counter }),
  });
}

/** Resolves a policy to a compactor; throws `INVALID_ARGUMENT` or `MISSING_COLLABORATOR`. */
export function resolvePrunePolicy(policy: SyncPrunePolicy): SyncCompactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor;
export function resolvePrunePolicy(policy: PrunePolicy): Compactor {
  if (typeof policy !== 'object' || policy === null) throw invalidOption('prune', 'policy', 'an object', policy);
  const strategy = policy.strategy;
  switch (strategy) {
    case 'all':
      return keepAll;
    case 'sliding_window':
      return slidingWindow({ turns: positiveInteger(strategy, 'limit', policy.limit) });
    case 'token_buffer': {
      const compactor = tokenBuffer({ maxTokens: positiveInteger(strategy, 'limit', policy.limit) });
      return policy.counter === undefined ? compactor : withCounter(compactor, policy.counter);
    }
    case 'summary': {
      const limit = positiveInteger(strategy, 'limit', policy.limit);
      if (policy.summarizer === undefined) throw missing(strategy, 'summarizer', '(messages) => summary');
      return summarize({ summarizer: policy.summarizer, keepTurns: limit });
    }
    case 'vector_store': {
      const limit = positiveInteger(strategy, 'limit', policy.limit);
      if (policy.archive === undefined) throw missing(strategy, 'archive', '{ archive(messages) { … } }');
      return offload({ archive: policy.archive, turns: limit });
    }
    default: {
      const unknown: never = strategy;
      throw invalidOption(
        'prune',
        'strategy',
        "one of 'all', 'sliding_window', 'token_buffer', 'summary', 'vector_store'",
        unknown,
      );
    }
  }
}
