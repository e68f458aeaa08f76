/**
 * Progress of a long operation, as the library reports it to a caller (the CLI draws a bar from it).
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** Where an operation is. */
export interface Progress {
  /** Sessions finished (written, checked or skipped). */
  readonly done: number;
  /** Sessions in all, when known (ids named, or counted first). */
  readonly total?: number;
  /** Sessions that failed so far. */
  readonly failed: number;
}

/** Receives progress; it must not throw (an error there is ignored). */
export type ProgressListener = (progress: Progress) => void;

/** Calls `listener` and ignores what it throws: a failing bar must not fail the work. */
export function report(listener: ProgressListener | undefined, progress: Progress): void {
  try {
    listener?.(progress);
  } catch {
    // The listener is for display only.
  }
}

/** Options shared by the long operations. */
export interface LongRunOptions {
  /** Stops after the sessions in flight. */
  readonly signal?: AbortSignal;
  readonly onProgress?: ProgressListener;
  /** Sessions in flight at once. @default 4 */
  readonly concurrency?: number;
  /** The total for progress, when the caller counted it (see `countSessions`). */
  readonly total?: number;
}

/** Checked concurrency: a positive integer up to 64 (`INVALID_ARGUMENT` otherwise). */
export function concurrencyOf(value: number | undefined): number {
  if (value === undefined) return 4;
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `concurrency must be an integer from 1 to 64, got ${String(value)}`,
    );
  }
  return value;
}
