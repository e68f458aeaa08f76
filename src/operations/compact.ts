/**
 * Compaction of stored sessions by a named built-in strategy: the one place the CLI's `compact`
 * and the server's `POST /sessions/{id}/compact` turn a strategy name and its limits into a
 * compactor, compact a stored session, and write it back (unless a dry run).
 * @module
 */
import { compaction, type CompactionResult, type SyncCompactor } from '../compaction/index.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { TokenCounter } from '../tokens/counter.js';
import { tokens } from '../tokens/index.js';

/** A strategy by name with its limits (each strategy needs one of them; see `STRATEGY_NAMES`). */
export interface CompactionSpec {
  readonly strategy: string;
  readonly maxMessages?: number;
  readonly maxTokens?: number;
  readonly targetTokens?: number;
  readonly turns?: number;
  readonly keepRecentTurns?: number;
}

/** A limit a strategy needs. */
export type CompactionLimit = 'maxMessages' | 'maxTokens' | 'turns';

/** Each strategy by name (the `compaction.*` factory names), the limit it needs and how it is built. */
const STRATEGIES: Readonly<
  Record<string, { readonly needs: CompactionLimit; readonly build: (spec: CompactionSpec) => SyncCompactor }>
> = {
  messageLimit: {
    needs: 'maxMessages',
    build: (o) => compaction.messageLimit({ maxMessages: o.maxMessages as number }),
  },
  tokenLimit: {
    needs: 'maxTokens',
    build: (o) =>
      compaction.tokenLimit({
        maxTokens: o.maxTokens as number,
        ...(o.targetTokens === undefined ? {} : { targetTokens: o.targetTokens }),
      }),
  },
  slidingWindow: { needs: 'turns', build: (o) => compaction.slidingWindow({ turns: o.turns as number }) },
  tokenBuffer: { needs: 'maxTokens', build: (o) => compaction.tokenBuffer({ maxTokens: o.maxTokens as number }) },
  byCategory: {
    needs: 'maxTokens',
    build: (o) =>
      compaction.byCategory({
        maxTokens: o.maxTokens as number,
        ...(o.targetTokens === undefined ? {} : { targetTokens: o.targetTokens }),
      }),
  },
  truncateToolOutputs: {
    needs: 'maxTokens',
    build: (o) =>
      compaction.truncateToolOutputs({
        maxTokens: o.maxTokens as number,
        ...(o.keepRecentTurns === undefined ? {} : { keepRecentTurns: o.keepRecentTurns }),
      }),
  },
  // Coreason's prune policy names, with turns or maxTokens as their limit.
  sliding_window: {
    needs: 'turns',
    build: (o) => compaction.resolvePrunePolicy({ strategy: 'sliding_window', limit: o.turns as number }),
  },
  token_buffer: {
    needs: 'maxTokens',
    build: (o) => compaction.resolvePrunePolicy({ strategy: 'token_buffer', limit: o.maxTokens as number }),
  },
};

/** The strategy names a spec may give. */
export const STRATEGY_NAMES: readonly string[] = Object.freeze(Object.keys(STRATEGIES));

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
  const strategy = Object.hasOwn(STRATEGIES, spec.strategy) ? STRATEGIES[spec.strategy] : undefined;
  if (strategy === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Unknown strategy ${JSON.stringify(spec.strategy.slice(0, 40))}; strategies: ${STRATEGY_NAMES.join(', ')}`,
    );
  if (spec[strategy.needs] === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${nameOf('strategy')} ${spec.strategy} needs ${nameOf(strategy.needs)}`,
    );
  return strategy.build(spec);
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
