/**
 * `exportSessions`: a store's sessions as export lines, streamed — one page of `list` and
 * `concurrency` sessions in memory at a time.
 * @module
 */
import { NotFoundError } from '../errors.js';
import { SharedValues, readAppValues, readBundle, readValues, type SessionBundle } from './bundle.js';
import { appValuesLine, sessionLineBytes } from './lines.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';
import { selected, selectionOf } from './walk.js';
import type { SessionStore } from '../store/session-store-types.js';

/** Options of `exportSessions`: the ids named, or `all` (which also exports the app scope's values). */
export interface ExportOptions extends LongRunOptions {
  readonly ids?: readonly string[];
  readonly all?: boolean;
}

/** The bundles of the sessions selected, in order (`NOT_FOUND` for an id named that is not there). */
export async function* exportBundles(store: SessionStore, options: ExportOptions): AsyncGenerator<SessionBundle> {
  const selection = selectionOf(options);
  let done = 0;
  const shared = new SharedValues();
  const bundles = mapOrdered(
    selected(store, selection, options.signal),
    concurrencyOf(options.concurrency),
    async ({ id, summary }) => {
      const bundle = await readBundle(store, id, summary, shared);
      // A session deleted while `all` pages is skipped; one named must be there.
      if (bundle === undefined && 'ids' in selection) throw new NotFoundError(`${store.name}: no session ${id}`);
      return bundle;
    },
    options.signal,
  );
  for await (const bundle of bundles) {
    done += 1;
    report(options.onProgress, { done, failed: 0, ...(options.total === undefined ? {} : { total: options.total }) });
    if (bundle !== undefined) yield bundle;
  }
}

/**
 * Export lines of the sessions selected, as UTF-8 bytes, each with its newline; with `all`, the
 * app scope's values first when there are any. Sessions come as the store's JSON bytes
 * (`getJsonBytes`): an export costs little more than a load.
 */
export async function* exportSessions(store: SessionStore, options: ExportOptions): AsyncGenerator<Uint8Array> {
  const selection = selectionOf(options);
  if (options.all === true) {
    const app = await readAppValues(store);
    if (Object.keys(app).length > 0) yield Buffer.from(`${appValuesLine(app)}\n`);
  }
  let done = 0;
  const shared = new SharedValues();
  const lines = mapOrdered(
    selected(store, selection, options.signal),
    concurrencyOf(options.concurrency),
    async ({ id, summary }) => {
      // The owners and expiry first, then the text: a session deleted in between is skipped.
      const head = summary ?? (await store.summary(id));
      const json = head === undefined ? undefined : await store.getJsonBytes(id);
      if (head === undefined || json === undefined) {
        // A session deleted while `all` pages is skipped; one named must be there.
        if ('ids' in selection) throw new NotFoundError(`${store.name}: no session ${id}`);
        return undefined;
      }
      return sessionLineBytes(json, await readValues(store, head, shared), head.expiresAt);
    },
    options.signal,
  );
  for await (const line of lines) {
    done += 1;
    report(options.onProgress, { done, failed: 0, ...(options.total === undefined ? {} : { total: options.total }) });
    if (line !== undefined) yield line;
  }
}
