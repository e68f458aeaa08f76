/**
 * The options of the file store's driver, and their checks: each bad value is refused with
 * `INVALID_ARGUMENT` when the store is made, not when it is first used.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import type { DriverShape } from '../../store/lazy-driver.js';
import type { FileSystem } from './file-system.js';
import type { DamageReport } from './session-repair.js';
import { DEFAULT_CACHE_BYTES, DEFAULT_FOLD_BYTES, DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_MAX_OPEN_FILES } from './tuning.js';

/**
 * What every file driver is, known before its module loads (`fileStore` loads it on first use).
 * Expiry is judged under the session's lock, in the append itself and in the range read: the core
 * reads no head first.
 */
export const FILE_DRIVER_SHAPE = Object.freeze({
  capabilities: Object.freeze({ expiryInCommit: true, purgeByIdPrefix: true }),
  implements: Object.freeze(['purge', 'values', 'forget', 'tail', 'marks'] as const),
}) satisfies Omit<DriverShape, 'name'>;

/** Options of the file driver. */
export interface FileDriverOptions {
  /** Name of the store in error messages. @default 'file' */
  readonly name?: string;
  /** Fold the journal into a new snapshot once it holds this many bytes (or half the snapshot's size, if larger). @default 1 MiB */
  readonly foldBytes?: number;
  /** How long to wait for another process's lock on a session before failing with `UNAVAILABLE`. @default 10000 */
  readonly lockTimeoutMs?: number;
  /**
   * Memory for sessions' records kept between calls. Beyond it the least recently used sessions
   * keep only their head, snapshot index and journal records (tail reads and appends need no
   * more), then are dropped. @default 64 MiB
   */
  readonly cacheBytes?: number;
  /**
   * Journals and snapshots kept open between calls; a session beyond it opens its files again by
   * name when used. Well under the usual limit of 1024 descriptors per process. @default 256
   */
  readonly maxOpenFiles?: number;
  /**
   * Called when damaged files were found and repaired (kept aside, never deleted): for logs and
   * alerts. A session that could not be read at all also comes back as a recovery session.
   */
  readonly onDamage?: (report: DamageReport) => void;
  /**
   * The file system the store's files go through (everything but its locks): a layer that
   * records or shapes what the store does, as the crash-consistency tests use. @default Node's `fs`
   */
  readonly fileSystem?: FileSystem;
}

/** The driver's settings once checked, defaults filled in. */
export interface FileDriverSettings {
  readonly name: string;
  readonly directory: string;
  readonly foldBytes: number;
  readonly lockTimeoutMs: number;
  readonly cacheBytes: number;
  readonly maxOpenFiles: number;
  /** Calls `onDamage`, never throwing: a failing listener must not fail the read that repaired the session. */
  readonly report: (damage: DamageReport) => void;
  readonly fileSystem: FileSystem | undefined;
}

function positive(name: string, value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: ${what} must be a positive number`);
  return value;
}

/** Checks the driver's directory and options (the name first: the other errors carry it). */
export function fileDriverSettings(directory: string, options: FileDriverOptions): FileDriverSettings {
  const name = options.name ?? 'file';
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', 'file: name must be a non-empty string');
  if (typeof directory !== 'string' || directory.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: the store needs a directory`);
  const onDamage = options.onDamage;
  return {
    name,
    directory,
    foldBytes: positive(name, options.foldBytes, DEFAULT_FOLD_BYTES, 'foldBytes'),
    lockTimeoutMs: positive(name, options.lockTimeoutMs, DEFAULT_LOCK_TIMEOUT_MS, 'lockTimeoutMs'),
    cacheBytes: positive(name, options.cacheBytes, DEFAULT_CACHE_BYTES, 'cacheBytes'),
    maxOpenFiles: positive(name, options.maxOpenFiles, DEFAULT_MAX_OPEN_FILES, 'maxOpenFiles'),
    report: (damage) => {
      try {
        onDamage?.(damage);
      } catch {
        // A failing listener must not fail the read that repaired the session.
      }
    },
    fileSystem: options.fileSystem,
  };
}
