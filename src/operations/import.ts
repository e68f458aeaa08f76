/**
 * `importSessions`: export lines, sessions or another system's importer items into a store, with
 * one rule for an id already there (see `writeBundle`): equal is skipped, different is a conflict
 * listed in the report, or replaced with `mode: 'replace'`. A bad line or record is a problem in
 * the report beside the sessions that imported.
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import type { ImportItem, ImportRepair, SourcePlace } from '../interchange/types.js';
import type { JsonValue } from '../message/schema.js';
import type { SessionStore } from '../store/session-store-types.js';
import { SharedValues, writeBundle, type SessionBundle, type WriteOutcome } from './bundle.js';
import { parseLine } from './lines.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';

/** One thing to import: a bundle (with where it came from and what an importer repaired), or a part of the source that could not be read. */
export type ImportInput =
  | {
      readonly kind: 'bundle';
      readonly bundle: SessionBundle;
      readonly source?: SourcePlace;
      readonly repairs?: readonly ImportRepair[];
    }
  | { readonly kind: 'app-values'; readonly values: Readonly<Record<string, JsonValue>>; readonly source?: SourcePlace }
  | { readonly kind: 'problem'; readonly code: ErrorCode; readonly message: string; readonly source?: SourcePlace };

/** A part of the input that was not imported, and why. */
export interface ImportProblem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly sessionId?: string;
  readonly source?: SourcePlace;
}

/** What `importSessions` did. */
export interface ImportReport {
  readonly created: number;
  /** Already there and equal (values it lacked were added). */
  readonly unchanged: number;
  readonly replaced: number;
  /** Not written: their retention had ended. */
  readonly expired: number;
  /** Sessions already there that differ (not written without `mode: 'replace'`). */
  readonly conflicts: ReadonlyArray<{ readonly sessionId: string; readonly message: string }>;
  /** Repairs importers made, by session. */
  readonly repairs: ReadonlyArray<{ readonly sessionId: string; readonly repairs: readonly ImportRepair[] }>;
  /** Lines or records that could not be imported. */
  readonly problems: readonly ImportProblem[];
}

/** Options of `importSessions`. */
export interface ImportSessionsOptions extends LongRunOptions {
  /** What to do with a session already there that differs. @default 'skip' (a conflict) */
  readonly mode?: 'skip' | 'replace';
}

/** Export lines (or JSON lines of plain sessions) as import inputs; blank lines are skipped, a bad line is a problem with its number. */
export async function* linesToInputs(
  lines: AsyncIterable<string> | Iterable<string>,
  path = '-',
): AsyncGenerator<ImportInput> {
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (text.trim().length === 0) continue;
    const source = { path, line: number };
    try {
      const entry = parseLine(text, number);
      yield entry.kind === 'session'
        ? { kind: 'bundle', bundle: entry.bundle, source }
        : { kind: 'app-values', values: entry.values, source };
    } catch (error) {
      if (!ChatstateError.isInstance(error)) throw error;
      yield { kind: 'problem', code: error.code, message: error.message, source };
    }
  }
}

/** Another system's importer items as import inputs (an item's values go to the session scope). */
export async function* itemsToInputs(items: AsyncIterable<ImportItem>): AsyncGenerator<ImportInput> {
  for await (const item of items) {
    if (item.kind === 'problem') {
      yield { kind: 'problem', code: item.code, message: item.message, source: item.source };
      continue;
    }
    const values = item.values === undefined || Object.keys(item.values).length === 0 ? {} : { session: item.values };
    yield { kind: 'bundle', bundle: { session: item.session, values }, source: item.source, repairs: item.repairs };
  }
}

type Done =
  | { readonly outcome: WriteOutcome; readonly input: ImportInput & { kind: 'bundle' } }
  | { readonly outcome: 'app' }
  | { readonly outcome: 'conflict'; readonly sessionId: string; readonly message: string }
  | { readonly outcome: 'problem'; readonly problem: ImportProblem };

async function importOne(
  store: SessionStore,
  input: ImportInput,
  mode: 'skip' | 'replace',
  shared: SharedValues,
): Promise<Done> {
  if (input.kind === 'problem') {
    const { kind: _kind, ...problem } = input;
    return { outcome: 'problem', problem };
  }
  try {
    if (input.kind === 'app-values') {
      await store.values.set({ scope: 'app' }, input.values);
      return { outcome: 'app' };
    }
    return { outcome: await writeBundle(store, input.bundle, { mode, shared }), input };
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    const sessionId = input.kind === 'bundle' ? input.bundle.session.id : undefined;
    if (error.code === 'CONFLICT' && sessionId !== undefined)
      return { outcome: 'conflict', sessionId, message: errorMessage(error) };
    return {
      outcome: 'problem',
      problem: {
        code: error.code,
        message: errorMessage(error),
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(input.source === undefined ? {} : { source: input.source }),
      },
    };
  }
}

/**
 * Imports `inputs` into `store`, `concurrency` at a time. Every input is tried: conflicts and
 * problems are listed in the report, never thrown; an error that is not a chatstate error (a bug)
 * is thrown.
 */
export async function importSessions(
  store: SessionStore,
  inputs: AsyncIterable<ImportInput> | Iterable<ImportInput>,
  options: ImportSessionsOptions = {},
): Promise<ImportReport> {
  const mode = options.mode ?? 'skip';
  const counts = { created: 0, unchanged: 0, replaced: 0, expired: 0 };
  const conflicts: Array<{ sessionId: string; message: string }> = [];
  const repairs: Array<{ sessionId: string; repairs: readonly ImportRepair[] }> = [];
  const problems: ImportProblem[] = [];
  let done = 0;
  const shared = new SharedValues();
  const results = mapOrdered(
    inputs,
    concurrencyOf(options.concurrency),
    (input) => importOne(store, input, mode, shared),
    options.signal,
  );
  for await (const result of results) {
    done += 1;
    switch (result.outcome) {
      case 'app':
        break;
      case 'conflict':
        conflicts.push({ sessionId: result.sessionId, message: result.message });
        break;
      case 'problem':
        problems.push(result.problem);
        break;
      default: {
        counts[result.outcome] += 1;
        const made = result.input.repairs;
        if (made !== undefined && made.length > 0)
          repairs.push({ sessionId: result.input.bundle.session.id, repairs: made });
      }
    }
    report(options.onProgress, {
      done,
      failed: conflicts.length + problems.length,
      ...(options.total === undefined ? {} : { total: options.total }),
    });
  }
  return { ...counts, conflicts, repairs, problems };
}
