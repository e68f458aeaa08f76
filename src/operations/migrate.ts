/**
 * `migrateSessions`: copies every session of one store, with its values and metadata, into
 * another — in parallel, with bounded memory (a page of `list` and `concurrency` sessions at a
 * time). It is idempotent and resumable: each session is written by `writeBundle`, which leaves
 * an equal copy as it is, so a second run duplicates nothing and a run killed halfway finishes
 * when run again (a save is atomic: a session is copied whole or not at all).
 * @module
 */
import { ChatstateError, errorMessage } from '../errors.js';
import type { SessionStore } from '../store/session-store-types.js';
import { SharedValues, readAppValues, readBundle, writeBundle, type WriteOutcome } from './bundle.js';
import { compareStores, type CompareReport } from './compare.js';
import type { ImportProblem } from './import.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';
import { everySession } from './walk.js';

/** Options of `migrateSessions`. */
export interface MigrateOptions extends LongRunOptions {
  /** What to do with a target session that differs. @default 'skip' (a conflict) */
  readonly mode?: 'skip' | 'replace';
  /** Compare the target with the source afterwards. @default false */
  readonly verify?: boolean;
}

/** The report of `migrateSessions`. */
export interface MigrateReport {
  /** Source sessions seen. */
  readonly sessions: number;
  readonly created: number;
  readonly unchanged: number;
  readonly replaced: number;
  readonly expired: number;
  readonly conflicts: ReadonlyArray<{ readonly sessionId: string; readonly message: string }>;
  /** Sessions that could not be read or written. */
  readonly problems: readonly ImportProblem[];
  /** With `verify`: the comparison of target and source. */
  readonly verify?: CompareReport;
}

type Outcome =
  | { readonly outcome: WriteOutcome | 'gone' }
  | { readonly outcome: 'conflict'; readonly sessionId: string; readonly message: string }
  | { readonly outcome: 'problem'; readonly problem: ImportProblem };

async function copyOne(
  source: SessionStore,
  target: SessionStore,
  id: string,
  mode: 'skip' | 'replace',
  shared: SharedValues,
  summary?: Parameters<typeof readBundle>[2],
): Promise<Outcome> {
  try {
    const bundle = await readBundle(source, id, summary, shared);
    // Deleted from the source while the run paged: nothing to copy.
    if (bundle === undefined) return { outcome: 'gone' };
    return { outcome: await writeBundle(target, bundle, { mode, shared }) };
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    if (error.code === 'CONFLICT') return { outcome: 'conflict', sessionId: id, message: errorMessage(error) };
    return { outcome: 'problem', problem: { code: error.code, message: errorMessage(error), sessionId: id } };
  }
}

/** Copies every session of `source` (and the app scope's values) into `target`. */
export async function migrateSessions(
  source: SessionStore,
  target: SessionStore,
  options: MigrateOptions = {},
): Promise<MigrateReport> {
  const mode = options.mode ?? 'skip';
  const counts = { created: 0, unchanged: 0, replaced: 0, expired: 0 };
  const conflicts: Array<{ sessionId: string; message: string }> = [];
  const problems: ImportProblem[] = [];
  const app = await readAppValues(source);
  if (Object.keys(app).length > 0) await target.values.set({ scope: 'app' }, app);
  let sessions = 0;
  const shared = new SharedValues();
  const results = mapOrdered(
    everySession(source, options.signal),
    concurrencyOf(options.concurrency),
    async (summary) => copyOne(source, target, summary.id, mode, shared, summary),
    options.signal,
  );
  for await (const result of results) {
    sessions += 1;
    if (result.outcome === 'conflict') conflicts.push({ sessionId: result.sessionId, message: result.message });
    else if (result.outcome === 'problem') problems.push(result.problem);
    else if (result.outcome !== 'gone') counts[result.outcome] += 1;
    report(options.onProgress, {
      done: sessions,
      failed: conflicts.length + problems.length,
      ...(options.total === undefined ? {} : { total: options.total }),
    });
  }
  const verify =
    options.verify === true && options.signal?.aborted !== true
      ? await compareStores(source, target, {
          concurrency: concurrencyOf(options.concurrency),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        })
      : undefined;
  return { sessions, ...counts, conflicts, problems, ...(verify === undefined ? {} : { verify }) };
}
