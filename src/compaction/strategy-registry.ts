/**
 * The built-in strategies by name, in one registry: what each needs (a limit, a collaborator) and
 * how it is built. Two families of names read it — Coreason's prune policies
 * (`session.prune({ strategy, limit })`) and the strategies a stored session is compacted with from
 * outside (the CLI's `compact`, the server's compact route, agent configs) — and an unknown name
 * gets the same `INVALID_ARGUMENT` from both, listing the names of its family.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { TokenCounter } from '../tokens/counter.js';
import { byCategory } from './by-category.js';
import { messageLimit } from './message-limit.js';
import { offload } from './offload.js';
import { invalidOption } from './options.js';
import { prepare, unchanged } from './report.js';
import { slidingWindow } from './sliding-window.js';
import { summarize } from './summarize.js';
import { tokenBuffer } from './token-buffer.js';
import { tokenLimit } from './token-limit.js';
import { truncateToolOutputs } from './truncate-tool-outputs.js';
import type { Archive, CompactionInput, CompactionResult, Compactor, Summarizer, SyncCompactor } from './types.js';

/** A limit a strategy needs. */
export type StrategyLimit = 'maxMessages' | 'maxTokens' | 'turns';

/** A strategy by name, with its limits and collaborators (each strategy reads the ones it needs). */
export interface StrategySpec {
  readonly strategy: string;
  readonly maxMessages?: number;
  readonly maxTokens?: number;
  readonly targetTokens?: number;
  readonly turns?: number;
  readonly keepRecentTurns?: number;
  /** The counter token_buffer counts with, whatever counter its input carries. */
  readonly counter?: TokenCounter;
  /** What summary writes summaries with. */
  readonly summarizer?: Summarizer;
  /** Where vector_store puts what it drops. */
  readonly archive?: Archive;
}

/** One strategy of the registry. */
export interface NamedStrategy<C extends Compactor = Compactor> {
  /** The limit it needs (none for `all`). */
  readonly needs: StrategyLimit | undefined;
  /** Its compactor for `spec` (the factory checks the limits; a missing collaborator is `MISSING_COLLABORATOR`). */
  readonly build: (spec: StrategySpec) => C;
}

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

function strategy<C extends Compactor>(needs: StrategyLimit | undefined, build: (spec: StrategySpec) => C) {
  return Object.freeze({ needs, build }) satisfies NamedStrategy<C>;
}

// Limits are read as given (`as number`): the caller checked that the one a strategy needs is
// there, and the factory refuses a value that is not a valid one.
const REGISTRY = Object.freeze({
  messageLimit: strategy('maxMessages', (spec) => messageLimit({ maxMessages: spec.maxMessages as number })),
  tokenLimit: strategy('maxTokens', (spec) =>
    tokenLimit({
      maxTokens: spec.maxTokens as number,
      ...(spec.targetTokens === undefined ? {} : { targetTokens: spec.targetTokens }),
    }),
  ),
  slidingWindow: strategy('turns', (spec) => slidingWindow({ turns: spec.turns as number })),
  tokenBuffer: strategy('maxTokens', (spec) => tokenBuffer({ maxTokens: spec.maxTokens as number })),
  byCategory: strategy('maxTokens', (spec) =>
    byCategory({
      maxTokens: spec.maxTokens as number,
      ...(spec.targetTokens === undefined ? {} : { targetTokens: spec.targetTokens }),
    }),
  ),
  truncateToolOutputs: strategy('maxTokens', (spec) =>
    truncateToolOutputs({
      maxTokens: spec.maxTokens as number,
      ...(spec.keepRecentTurns === undefined ? {} : { keepRecentTurns: spec.keepRecentTurns }),
    }),
  ),
  // Coreason's memory strategies. Those that need a collaborator refuse to run without it
  // (Coreason's silently did nothing).
  all: strategy(undefined, () => keepAll),
  sliding_window: strategy('turns', (spec) => slidingWindow({ turns: spec.turns as number })),
  token_buffer: strategy('maxTokens', (spec) => {
    const compactor = tokenBuffer({ maxTokens: spec.maxTokens as number });
    return spec.counter === undefined ? compactor : withCounter(compactor, spec.counter);
  }),
  summary: strategy('turns', (spec): Compactor => {
    if (spec.summarizer === undefined) throw missing('summary', 'summarizer', '(messages) => summary');
    return summarize({ summarizer: spec.summarizer, keepTurns: spec.turns as number });
  }),
  vector_store: strategy('turns', (spec): Compactor => {
    if (spec.archive === undefined) throw missing('vector_store', 'archive', '{ archive(messages) { … } }');
    return offload({ archive: spec.archive, turns: spec.turns as number });
  }),
});

type RegisteredName = keyof typeof REGISTRY;

/**
 * The strategies a stored session is compacted with from outside (CLI, server, agent configs): the
 * `compaction.*` factories that need no collaborator, and Coreason's sliding_window and token_buffer.
 */
const STORED_NAMES = Object.freeze([
  'messageLimit',
  'tokenLimit',
  'slidingWindow',
  'tokenBuffer',
  'byCategory',
  'truncateToolOutputs',
  'sliding_window',
  'token_buffer',
] as const satisfies readonly RegisteredName[]);

/** Coreason's memory strategies: the names `session.prune({ strategy, limit })` takes. */
const PRUNE_NAMES = Object.freeze([
  'all',
  'sliding_window',
  'token_buffer',
  'summary',
  'vector_store',
] as const satisfies readonly RegisteredName[]);

/** The names a stored session may be compacted with (see `storedStrategy`). */
export const STRATEGY_NAMES: readonly string[] = STORED_NAMES;

/** The names of Coreason's prune policies (see `pruneStrategy`). */
export const PRUNE_STRATEGY_NAMES: readonly string[] = PRUNE_NAMES;

/** `name` when it is one of `names`; else `INVALID_ARGUMENT` listing them. */
function known<N extends RegisteredName>(name: unknown, names: readonly N[]): N {
  if (typeof name === 'string' && (names as readonly string[]).includes(name)) return name as N;
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 40)) : String(typeof name);
  throw new InvalidInputError('INVALID_ARGUMENT', `Unknown strategy ${shown}; strategies: ${names.join(', ')}`, {
    details: { known: [...names] },
  });
}

/** The strategy named `name` among `STRATEGY_NAMES` (all synchronous); `INVALID_ARGUMENT` listing them otherwise. */
export function storedStrategy(name: unknown): NamedStrategy<SyncCompactor> {
  return REGISTRY[known(name, STORED_NAMES)];
}

/** The strategy named `name` among `PRUNE_STRATEGY_NAMES`; `INVALID_ARGUMENT` listing them otherwise. */
export function pruneStrategy(name: unknown): NamedStrategy {
  return REGISTRY[known(name, PRUNE_NAMES)];
}
