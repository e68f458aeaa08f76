/**
 * The Postgres store's change feed: every write transaction calls `pg_notify` on the store's
 * channel (so a change is told only when it commits, and in commit order), and one dedicated
 * connection `LISTEN`s to it. That connection is checked out of the pool for as long as anyone
 * listens and destroyed afterwards, never handed back with a `LISTEN` on it.
 *
 * Notifications sent while the listening connection is down are lost for it: when it is back,
 * the feed says `live(gap: true)`, which the core tells its subscribers as a `reset`. A listener
 * that cannot connect reports `UNAVAILABLE` once and keeps trying (50 ms doubling to 2 s), and a
 * heartbeat finds a connection that died without closing.
 * @module
 */
import { createHash } from 'node:crypto';
import { UnavailableError, errorMessage } from '../../errors.js';
import type { DriverChangeSink } from '../../store/change-types.js';
import { parseChange } from '../change-payload.js';
import { withinDeadline, type ConnectionLimits } from '../network.js';
import { postgresConnectionFailure } from './connection-errors.js';
import type { PgClientLike, PgPoolLike } from './driver.js';
import type { Tables } from './sql.js';

/** A pooled connection that can listen (`pg`'s `PoolClient`). */
interface ListeningClient extends Pick<PgClientLike, 'query' | 'release'> {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(event: string): unknown;
}

const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2000;
/** How often the listening connection is asked whether it is alive. */
const HEARTBEAT_MS = 10_000;

/**
 * The channel of the store's tables. Channels are per database, not per schema: two stores in one
 * database with other schemas or prefixes must not hear each other, so the name hashes both.
 */
export function changeChannel(tables: Tables): string {
  const hash = createHash('sha256').update(`${tables.schema}\0${tables.prefix}`).digest('hex').slice(0, 24);
  return `chatstate_changes_${hash}`;
}

/** What the listener needs. */
export interface ListenOptions {
  readonly pool: PgPoolLike;
  readonly limits: ConnectionLimits;
  readonly channel: string;
  readonly store: string;
}

/** Waits `ms`, or less when `signal` aborts (a stopped feed does not wait out its backoff). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done);
  });
}

/** Listens on `options.channel` until the returned function is called; never throws (see the module). */
export async function listenForChanges(options: ListenOptions, sink: DriverChangeSink): Promise<() => Promise<void>> {
  const { pool, limits, channel, store } = options;
  let stopped = false;
  const stopping = new AbortController();
  let client: ListeningClient | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  // Changes may have been missed since the feed started: a gap to tell when it listens again.
  let gap = false;
  let connecting: Promise<void> | undefined;

  const failed = (error: unknown): UnavailableError =>
    new UnavailableError(
      `${store}: the change feed cannot listen: ${errorMessage(error)}`,
      { store, reason: postgresConnectionFailure(error)?.reason ?? 'CONNECTION', outcome: 'not-applied' },
      { cause: error },
    );

  const drop = (target: ListeningClient, error: Error): void => {
    target.removeAllListeners('notification');
    // Destroyed, never pooled again: it still LISTENs, and it may be broken.
    target.release(error);
  };

  const broken = (target: ListeningClient, error: Error): void => {
    if (client !== target) return;
    client = undefined;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
    drop(target, error);
    if (stopped) return;
    gap = true;
    sink.interrupted(failed(error));
    connecting ??= connect();
  };

  const connectOnce = async (): Promise<void> => {
    const pending = pool.connect();
    let made: ListeningClient;
    try {
      made = (await withinDeadline<PgClientLike>(
        pending,
        limits.connectTimeoutMs,
        () => new Error(`timeout exceeded when trying to connect (${limits.connectTimeoutMs} ms)`),
      )) as unknown as ListeningClient;
    } catch (error) {
      pending.then(
        (late) => late.release(true),
        () => undefined,
      );
      throw error;
    }
    // Heard from the start: an unheard 'error' event would crash the process.
    made.on('error', (error?: Error) => broken(made, error ?? new Error('the listening connection failed')));
    made.on('end', () => broken(made, new Error('the listening connection ended')));
    made.on('notification', (message) => {
      if (message.channel !== channel || client !== made) return;
      const change = parseChange(message.payload);
      if (change !== undefined) sink.change(change);
    });
    try {
      const listening = made.query(`LISTEN "${channel}"`);
      listening.catch(() => undefined);
      await withinDeadline(listening, limits.commandTimeoutMs, () => new Error('LISTEN unanswered'));
    } catch (error) {
      drop(made, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    if (stopped) {
      drop(made, new Error('the change feed stopped'));
      return;
    }
    client = made;
    heartbeat = setInterval(() => {
      const ping = made.query('SELECT 1');
      ping.catch(() => undefined);
      withinDeadline(
        ping,
        limits.commandTimeoutMs,
        () => new Error('the listening connection stopped answering'),
      ).catch((error: unknown) => broken(made, error instanceof Error ? error : new Error(String(error))));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    sink.live(gap);
  };

  const connect = async (): Promise<void> => {
    let delay = RETRY_FIRST_MS;
    let told = false;
    try {
      while (!stopped) {
        try {
          await connectOnce();
          return;
        } catch (error) {
          if (stopped) return;
          gap = true;
          // Told once per outage, then retried quietly.
          if (!told) sink.interrupted(failed(error));
          told = true;
          await sleep(delay, stopping.signal);
          delay = Math.min(delay * 2, RETRY_MAX_MS);
        }
      }
    } finally {
      connecting = undefined;
    }
  };

  connecting = connect();
  return async () => {
    stopped = true;
    stopping.abort();
    if (heartbeat !== undefined) clearInterval(heartbeat);
    const current = client;
    client = undefined;
    if (current !== undefined) drop(current, new Error('the change feed stopped'));
    await connecting;
  };
}

export { changePayload } from '../change-payload.js';

/** The statements that tell a change, beside the store's own (built from them). */
export interface NotifyStatements {
  /** `appendHead` that also notifies, in the same statement (no extra round trip); the channel is `$12`. */
  readonly appendHead: string;
  /** `remove` that notifies the removed head's version and owner; the channel is `$2`. */
  readonly remove: string;
  /** Notifies the deletes of the ids `$2` on channel `$1` (a purge). */
  readonly purged: string;
  /** Notifies payload `$2` on channel `$1` (a replace, whose change is known before it commits). */
  readonly notify: string;
}

const PAYLOAD = (kind: string) => `json_build_object('k', '${kind}', 'i', id, 'v', version, 'u', user_id)::text`;

/** The notifying statements for the store's `appendHead` and `remove`. */
export function notifyStatements(statements: {
  readonly appendHead: string;
  readonly remove: string;
}): NotifyStatements {
  return {
    appendHead: `WITH changed AS (${statements.appendHead} RETURNING id, version, user_id)
      SELECT pg_notify($12, ${PAYLOAD('a')}) FROM changed`,
    remove: `WITH gone AS (${statements.remove} RETURNING id, version, user_id)
      SELECT pg_notify($2, ${PAYLOAD('d')}) FROM gone`,
    purged: `SELECT pg_notify($1, json_build_object('k', 'd', 'i', gone.id, 'v', 0)::text)
      FROM unnest($2::text[]) AS gone(id)`,
    notify: 'SELECT pg_notify($1, $2)',
  };
}
