/**
 * Compaction of stored sessions by a named built-in strategy: the one place the CLI's `compact`
 * and the server's `POST /sessions/{id}/compact` turn a strategy name and its limits into a
 * compactor, compact a stored session, and write it back (unless a dry run).
 * @module
 */
import type { CompactionResult, SyncCompactor } from '../compaction/index.js';
import {
  STRATEGY_NAMES,
  storedStrategy,
  type StrategyLimit,
  type StrategySpec,
} from '../compaction/strategy-registry.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { TokenCounter } from '../tokens/counter.js';
import { tokens } from '../tokens/index.js';

/** A strategy by name with its limits (each strategy needs one of them; see `STRATEGY_NAMES`). */
export type CompactionSpec = Omit<StrategySpec, 'counter' | 'summarizer' | 'archive'>;

/** A limit a strategy needs. */
export type CompactionLimit = StrategyLimit;

/** The strategy names a spec may give (the strategy registry's, for stored sessions). */
export { STRATEGY_NAMES };

/** The token counters a compaction may count with, by name. */
export const COUNTERS: Readonly<Record<string, TokenCounter>> = Object.freeze({
  estimate: tokens.estimate,
  o200k_base: tokens.o200kBase,
  cl100k_base: tokens.cl100kBase,
});

/** The counter `name` (`INVALID_ARGUMENT` listing them for another name). */
export function counterNamed(name: string): TokenCounter {
  // An own-property check: "constructor" must not resolve to Object's members.
  if (!Object.hasOwn(COUNTERS, name))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Unknown counter ${JSON.stringify(name.slice(0, 40))}; counters: ${Object.keys(COUNTERS).join(', ')}`,
    );
  return COUNTERS[name] as TokenCounter;
}

/**
 * The compactor of `spec`; `INVALID_ARGUMENT` for an unknown strategy or a missing limit.
 * `nameOf` names a field as the caller's user knows it (a CLI flag, a JSON field).
 */
export function compactorOf(
  spec: CompactionSpec,
  nameOf: (field: CompactionLimit | 'strategy') => string = (field) => field,
): SyncCompactor {
  const strategy = storedStrategy(spec.strategy);
  if (strategy.needs !== undefined && spec[strategy.needs] === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${nameOf('strategy')} ${spec.strategy} needs ${nameOf(strategy.needs)}`,
    );
  // The limits alone: a caller's spec may carry more (the CLI's options name a counter by its name).
  const { maxMessages, maxTokens, targetTokens, turns, keepRecentTurns } = spec;
  return strategy.build({ strategy: spec.strategy, maxMessages, maxTokens, targetTokens, turns, keepRecentTurns });
}

/** The report of one session's compaction. */
export interface CompactionReport extends Omit<CompactionResult, 'messages' | 'added' | 'error'> {
  readonly sessionId: string;
  /** True when the compacted session was saved (a compaction happened and it was no dry run). */
  readonly written: boolean;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  /** Messages the compaction added (summaries, markers). */
  readonly added: number;
  /** The session's version after the compaction (unchanged when nothing was written). */
  readonly version: number;
}

/**
 * Compacts stored session `id` now with `compactor` and saves it unless `dryRun` — at the version
 * it read, so a writer that changed the session meanwhile wins (`CONFLICT`) and nothing is lost.
 */
export async function compactStored(
  store: SessionStore,
  id: string,
  compactor: SyncCompactor,
  options: { readonly dryRun?: boolean; readonly counter?: TokenCounter } = {},
): Promise<CompactionReport> {
  const session = await store.get(id);
  if (session === undefined)
    throw new NotFoundError(`No session ${JSON.stringify(id)} in store ${store.name}`, { details: { sessionId: id } });
  const { session: compacted, result } = session.compact(compactor, {
    counter: options.counter ?? tokens.estimate,
    force: true,
  });
  if (result === undefined) throw new Error('compact: a forced compaction gave no report');
  const write = result.compacted && options.dryRun !== true;
  const saved = write ? await store.save(compacted, { expectedVersion: session.version }) : session;
  const { messages: _messages, added, error: _error, ...report } = result;
  return {
    sessionId: id,
    ...report,
    added: added.length,
    written: write,
    messagesBefore: session.messages.length,
    messagesAfter: result.messages.length,
    version: saved.version,
  };
}
