/**
 * Options of the `SessionManager` and their validation.
 * @module
 */
import type { Compactor, Strategy } from '../compaction/types.js';
import { InvalidInputError } from '../errors.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { CacheFreshness } from './freshness.js';
import { estimate } from '../tokens/estimate.js';

/** Options of `new SessionManager`. */
export interface SessionManagerOptions {
  /** Where sessions are kept. */
  readonly store: SessionStore;
  /** A session holding this many messages is at its boundary: the next append continues it. @default 5000 */
  readonly maxMessagesPerSession?: number;
  /** Sessions kept in memory (the most recently used); a dirty one is saved before it leaves. @default 20 */
  readonly maxSessionsInMemory?: number;
  /** Dirty sessions are saved this often; `false` saves only on `save`, `flush`, eviction and `close`. @default 60000 */
  readonly autoSaveIntervalMs?: number | false;
  /** `close()` also closes the store (only when the manager owns it). @default false */
  readonly ownsStore?: boolean;
  /**
   * Compacts a session after an append that ends with a final answer (an assistant message without
   * tool calls), and after a turn's final answer when `runTurn` is given no compactor of its own.
   */
  readonly compactor?: Compactor | Strategy;
  /** Counter for `chainStats` and compaction. @default tokens.estimate */
  readonly counter?: TokenCounter;
  /**
   * How a cached session is kept fresh when other processes write the store: `revalidate` reads its
   * head (version, no messages) on every access, so a load never returns a version older than the
   * store's; `feed` trusts the store's change feed instead (no read per access, but a change is seen
   * only once its notification arrives). See `freshness.ts`. @default 'revalidate'
   */
  readonly freshness?: CacheFreshness;
}

/** The options with defaults filled, checked. */
export interface ResolvedManagerOptions {
  readonly store: SessionStore;
  readonly maxMessagesPerSession: number;
  readonly maxSessionsInMemory: number;
  readonly autoSaveIntervalMs: number | false;
  readonly ownsStore: boolean;
  readonly compactor: Compactor | Strategy | undefined;
  readonly counter: TokenCounter;
  readonly freshness: CacheFreshness;
}

/** Longest delay `setInterval` honours; a larger one silently becomes 1 ms in Node. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

const STORE_METHODS = ['load', 'get', 'save', 'append', 'list', 'delete', 'close'] as const;

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `SessionManager: ${message}`);
}

function positiveInteger(value: unknown, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(
      `${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}, not ${String(value)}`,
    );
  }
  return value;
}

function isStore(value: unknown): value is SessionStore {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return STORE_METHODS.every((method) => typeof record[method] === 'function');
}

/** True for a `Compactor` or a `Strategy` (anything with `compact`). */
export function isStrategy(value: unknown): value is Strategy {
  return typeof value === 'object' && value !== null && typeof (value as Strategy).compact === 'function';
}

/** True for a `TokenCounter`. */
export function isCounter(value: unknown): value is TokenCounter {
  return typeof value === 'object' && value !== null && typeof (value as TokenCounter).countMessage === 'function';
}

/** Checks `options` and fills defaults; throws `INVALID_ARGUMENT`. */
export function resolveManagerOptions(options: SessionManagerOptions): ResolvedManagerOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object with a store');
  if (!isStore(options.store)) throw invalid(`store must be a SessionStore (with ${STORE_METHODS.join(', ')})`);
  const interval = options.autoSaveIntervalMs;
  if (options.ownsStore !== undefined && typeof options.ownsStore !== 'boolean')
    throw invalid('ownsStore must be a boolean');
  if (options.compactor !== undefined && !isStrategy(options.compactor))
    throw invalid('compactor must be a Compactor or a Strategy');
  if (options.counter !== undefined && !isCounter(options.counter)) throw invalid('counter must be a TokenCounter');
  const freshness = options.freshness ?? 'revalidate';
  if (freshness !== 'revalidate' && freshness !== 'feed')
    throw invalid(`freshness must be 'revalidate' or 'feed', not ${String(freshness)}`);
  return {
    store: options.store,
    maxMessagesPerSession: positiveInteger(options.maxMessagesPerSession, 'maxMessagesPerSession', 5000),
    maxSessionsInMemory: positiveInteger(options.maxSessionsInMemory, 'maxSessionsInMemory', 20),
    autoSaveIntervalMs:
      interval === false ? false : positiveInteger(interval, 'autoSaveIntervalMs', 60_000, MAX_TIMER_DELAY_MS),
    ownsStore: options.ownsStore ?? false,
    compactor: options.compactor,
    counter: options.counter ?? estimate,
    freshness,
  };
}
