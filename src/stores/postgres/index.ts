/**
 * The PostgreSQL store (`pg`, loaded only when this store is opened). Two tables: one head row per
 * session (what `list` needs, the counters and the version) and one row per message keyed by
 * `(session_id, seq)`; appends add rows and never rewrite a session (see `driver.ts`).
 * @module
 */
import { ConnectionGate } from './gate.js';
import { InvalidInputError } from '../../errors.js';
import { storeName } from '../../store/driver-helpers.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { StoreDriver } from '../../store/driver-types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { connectionLimits, parseConnectionUrl } from '../network.js';
import { SocketTracker, endPool, type OwnedPool } from './connection.js';
import { PostgresDriver, type OwnedConnections, type PgPoolLike } from './driver.js';
import { migrate } from './migrations.js';
import { STORE, tablesFor } from './sql.js';

export type { PgClientLike, PgPoolLike, PgResultLike } from './driver.js';
export { SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION } from './migrations.js';

/** Options of the Postgres driver. */
export interface PostgresOptions {
  /** Name of the store in error messages. @default 'postgres' */
  name?: string;
  /** Schema holding the tables, created when missing (or `?schema=` in the URL). @default 'public' */
  schema?: string;
  /** Prefix of the table names (or `?tablePrefix=` in the URL). @default 'chatstate_' */
  tablePrefix?: string;
  /** Most connections in the pool the store creates from a URL; unused with a caller's pool. @default 10 */
  maxConnections?: number;
  /**
   * How long a call waits for a connection (a free one from the pool, or a new one to connect and
   * start up) before failing with `UNAVAILABLE`. A refused or reset connection fails at once.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /**
   * How long one statement may go unanswered before the connection counts as stalled: the call
   * fails with `UNAVAILABLE` and the connection is destroyed, never reused. Bounds lock waits too,
   * so keep it above the longest statement you expect (one statement writes at most 1,000 messages).
   * @default 10000
   */
  commandTimeoutMs?: number;
  /**
   * The change feed (`store.changes` hears every process's writes): each write transaction calls
   * `pg_notify`, and while anyone listens one pooled connection `LISTEN`s. Postgres commits
   * notifying transactions one at a time (a database-wide lock held through the commit), so a
   * write-heavy deployment that needs no feed may turn it off; `store.changes` then tells only this
   * store's own writes. Also `?changeFeed=false` in the URL. @default true
   */
  changeFeed?: boolean;
}

/** Options of `postgresStore`: the driver's and the core's. */
export interface PostgresStoreOptions extends SessionStoreOptions, PostgresOptions {}

/** The options the store sets on the pool it creates (see `pg`'s `Pool` and `Client`). */
interface OwnedPoolConfig {
  connectionString: string;
  max: number;
  fallback_application_name: string;
  /** The pool destroys a connection that does not start up in time (our own timer only stops waiting for it). */
  connectionTimeoutMillis: number;
  /** TCP keep-alive finds idle connections to a server that vanished without closing them. */
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
  /** Our sockets, so that a stalled one can be destroyed on close. */
  stream: () => NodeJS.ReadWriteStream;
  /** Server side: ends a transaction whose client went silent (see `ORPHAN_TRANSACTION_MS`). */
  idle_in_transaction_session_timeout: number;
}

interface PgModule {
  Pool: new (config: OwnedPoolConfig) => OwnedPool;
}

const DEFAULT_SCHEMA = 'public';
const DEFAULT_PREFIX = 'chatstate_';
const KEEP_ALIVE_DELAY_MS = 10_000;
// A connection the store gave up on mid-transaction (a statement unanswered in time) may still hold
// row locks on the server, which would keep later writers of that session waiting until the server
// noticed the client was gone (hours, with default TCP settings, when the network dropped it). The
// store never leaves a transaction idle between two statements for more than a moment.
const ORPHAN_TRANSACTION_MS = 60_000;

async function loadPg(store: string): Promise<PgModule> {
  let module: { default?: Partial<PgModule>; Pool?: PgModule['Pool'] };
  try {
    module = (await import('pg')) as unknown as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        `${store}: this store needs the \`pg\` package: npm install pg (or pass your own pool)`,
        {
          cause: error,
          details: { package: 'pg' },
        },
      );
    }
    throw error;
  }
  const Pool = module.Pool ?? module.default?.Pool;
  if (typeof Pool !== 'function')
    throw new InvalidInputError('MISSING_DEPENDENCY', `${store}: the installed \`pg\` package has no Pool`, {
      details: { package: 'pg' },
    });
  return { Pool };
}

/** Splits a store URL into the `pg` connection string and the store's own `schema`/`tablePrefix`/`changeFeed` parameters. */
function parseUrl(
  url: string,
  store: string,
): { connectionString: string; schema?: string; tablePrefix?: string; changeFeed?: boolean } {
  const parsed = parseConnectionUrl(url, store, ['postgres:', 'postgresql:']);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  const tablePrefix = parsed.searchParams.get('tablePrefix') ?? undefined;
  const feed = parsed.searchParams.get('changeFeed') ?? undefined;
  if (schema === undefined && tablePrefix === undefined && feed === undefined) return { connectionString: url };
  if (feed !== undefined && feed !== 'true' && feed !== 'false')
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: ?changeFeed= must be true or false`);
  // Ours, not libpq's: removed before the URL reaches pg.
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('tablePrefix');
  parsed.searchParams.delete('changeFeed');
  return {
    connectionString: parsed.toString(),
    ...(schema === undefined ? {} : { schema }),
    ...(tablePrefix === undefined ? {} : { tablePrefix }),
    ...(feed === undefined ? {} : { changeFeed: feed === 'true' }),
  };
}

function isPool(value: unknown): value is PgPoolLike {
  return typeof value === 'object' && value !== null && typeof (value as { connect?: unknown }).connect === 'function';
}

/**
 * A Postgres driver on a URL (`postgres://user:pass@host/db?schema=app`) or on the caller's pool.
 * Creates or migrates the tables before it resolves. A pool the caller passed is never ended by `close`.
 *
 * The timeouts bound every checkout and statement on a caller's pool too, and the store listens
 * for `'error'` on each connection while it holds it. The pool itself stays the caller's: give it
 * a `pool.on('error', …)` listener for idle connections (as `pg` requires), and its own
 * `connectionTimeoutMillis` and `keepAlive` so that it drops connections that cannot start up.
 */
export async function postgresDriver(
  urlOrPool: string | PgPoolLike,
  options: PostgresOptions = {},
): Promise<StoreDriver> {
  let pool: PgPoolLike;
  let owned: OwnedConnections | undefined;
  let fromUrl: { schema?: string; tablePrefix?: string; changeFeed?: boolean } = {};
  const name = storeName(options.name, STORE);
  const limits = connectionLimits(name, options);
  if (typeof urlOrPool === 'string') {
    const { connectionString, ...rest } = parseUrl(urlOrPool, name);
    fromUrl = rest;
    const maxConnections = options.maxConnections ?? 10;
    if (!Number.isInteger(maxConnections) || maxConnections < 1)
      throw new InvalidInputError('INVALID_ARGUMENT', `${name}: maxConnections must be a positive integer`);
    const { Pool } = await loadPg(name);
    const sockets = new SocketTracker();
    const made = new Pool({
      connectionString,
      // One more than the gate lets through: the change feed's LISTEN holds one while anyone listens.
      max: maxConnections + 1,
      fallback_application_name: 'chatstate',
      connectionTimeoutMillis: limits.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
      stream: sockets.create,
      idle_in_transaction_session_timeout: ORPHAN_TRANSACTION_MS,
    });
    // An idle connection that breaks (server restart, network) is reported as an 'error' event,
    // which would crash the process if nobody listened; the pool drops it and reconnects later.
    made.on('error', () => undefined);
    owned = { pool: made, sockets, gate: new ConnectionGate(maxConnections, name) };
    pool = made;
  } else if (isPool(urlOrPool)) {
    pool = urlOrPool;
  } else {
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: expected a postgres:// URL or a pool with connect()`);
  }
  try {
    const tables = tablesFor(
      options.schema ?? fromUrl.schema ?? DEFAULT_SCHEMA,
      options.tablePrefix ?? fromUrl.tablePrefix ?? DEFAULT_PREFIX,
      name,
    );
    if (options.changeFeed !== undefined && typeof options.changeFeed !== 'boolean')
      throw new InvalidInputError('INVALID_ARGUMENT', `${name}: changeFeed must be a boolean`);
    const driver = new PostgresDriver(pool, tables, limits, owned, options.changeFeed ?? fromUrl.changeFeed ?? true);
    await driver.withClient((client) => migrate(client, tables));
    return driver;
  } catch (error) {
    // Ended within the connect timeout even when the server is stalled: a failed open leaves no socket or timer behind.
    if (owned !== undefined) await endPool(owned.pool, owned.sockets, limits.connectTimeoutMs);
    throw error;
  }
}

/** ✱ A Postgres `SessionStore` on a URL or the caller's pool. */
export async function postgresStore(
  urlOrPool: string | PgPoolLike,
  options: PostgresStoreOptions = {},
): Promise<SessionStore> {
  const { name, schema, tablePrefix, maxConnections, connectTimeoutMs, commandTimeoutMs, changeFeed, ...core } =
    options;
  const driverOptions: PostgresOptions = {
    ...(name === undefined ? {} : { name }),
    ...(schema === undefined ? {} : { schema }),
    ...(tablePrefix === undefined ? {} : { tablePrefix }),
    ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
    ...(changeFeed === undefined ? {} : { changeFeed }),
  };
  return createSessionStore(await postgresDriver(urlOrPool, driverOptions), core);
}
