/**
 * `compareStores`: does a target hold every session of a source, equal with its values (what
 * `migrate --verify` checks)?
 * @module
 */
import { ChatstateError, errorMessage } from '../errors.js';
import type { SessionStore } from '../store/session-store-types.js';
import { BUNDLE_SCOPES, readAppValues, readBundle, sameSession, type SessionBundle } from './bundle.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';
import { everySession } from './walk.js';

/** One difference between source and target. */
export interface StoreDifference {
  /** The session, or `undefined` for the app scope. */
  readonly sessionId?: string;
  /** `missing`: not in the target; `different`: there but not equal; `extra`: in the target only; `unreadable`: a side could not be read. */
  readonly kind: 'missing' | 'different' | 'extra' | 'unreadable';
  readonly message: string;
}

/** The report of `compareStores`. */
export interface CompareReport {
  /** Sessions of the source compared. */
  readonly compared: number;
  /** Missing, different or unreadable (the first `maxDifferences`); extras are listed but do not make `equal` false. */
  readonly differences: readonly StoreDifference[];
  readonly omitted: number;
  /** True when the target holds every source session, equal, with equal values. */
  readonly equal: boolean;
}

/** Options of `compareStores`. */
export interface CompareOptions extends LongRunOptions {
  /** Differences kept in the report. @default 1000 */
  readonly maxDifferences?: number;
  /** Also list target sessions the source lacks. @default true */
  readonly extras?: boolean;
}

function differ(a: SessionBundle, b: SessionBundle): string[] {
  const what: string[] = [];
  if (!sameSession(a.session, b.session)) what.push('session');
  for (const scope of BUNDLE_SCOPES)
    if (canonicalJson(a.values[scope] ?? {}) !== canonicalJson(b.values[scope] ?? {})) what.push(`${scope} values`);
  return what;
}

async function compareOne(
  source: SessionStore,
  target: SessionStore,
  id: string,
): Promise<StoreDifference | undefined> {
  try {
    const from = await readBundle(source, id);
    if (from === undefined) return undefined;
    const to = await readBundle(target, id);
    if (to === undefined) return { sessionId: id, kind: 'missing', message: `${target.name} has no session ${id}` };
    const what = differ(from, to);
    return what.length === 0
      ? undefined
      : { sessionId: id, kind: 'different', message: `differs in ${what.join(', ')}` };
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    return { sessionId: id, kind: 'unreadable', message: `${error.code}: ${errorMessage(error)}` };
  }
}

/** Compares every session of `source` (and the app scope's values) with `target`. */
export async function compareStores(
  source: SessionStore,
  target: SessionStore,
  options: CompareOptions = {},
): Promise<CompareReport> {
  const maxDifferences = options.maxDifferences ?? 1000;
  const differences: StoreDifference[] = [];
  let omitted = 0;
  let failures = 0;
  const note = (difference: StoreDifference): void => {
    if (difference.kind !== 'extra') failures += 1;
    if (differences.length < maxDifferences) differences.push(difference);
    else omitted += 1;
  };
  const app = [await readAppValues(source), await readAppValues(target)].map((values) => canonicalJson(values));
  if (app[0] !== app[1]) note({ kind: 'different', message: 'the app scope values differ' });
  let compared = 0;
  const results = mapOrdered(
    everySession(source, options.signal),
    concurrencyOf(options.concurrency),
    async ({ id }) => compareOne(source, target, id),
    options.signal,
  );
  for await (const difference of results) {
    compared += 1;
    if (difference !== undefined) note(difference);
    report(options.onProgress, {
      done: compared,
      failed: failures,
      ...(options.total === undefined ? {} : { total: options.total }),
    });
  }
  if (options.extras !== false) {
    for await (const summary of everySession(target, options.signal)) {
      if ((await source.summary(summary.id)) === undefined)
        note({ sessionId: summary.id, kind: 'extra', message: `${source.name} has no session ${summary.id}` });
    }
  }
  return { compared, differences, omitted, equal: failures === 0 };
}
