/**
 * The PostgreSQL store (`pg`, loaded only when this store is opened). Two tables: one head row per
 * session (what `list` needs, the counters and the version) and one row per message keyed by
 * `(session_id, seq)`; appends add rows and never rewrite a session (see `driver.ts`).
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { SessionStore, StoreDriver } from '../../store/types.js';
import { PostgresDriver, type OwnedPool, type PgPoolLike } from './driver.js';
import { migrate } from './migrations.js';
import { STORE, tablesFor } from './sql.js';

export type { PgClientLike, PgPoolLike, PgResultLike } from './driver.js';
export { SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION } from './migrations.js';

/** Options of the Postgres driver. */
export interface PostgresOptions {
  /** Schema holding the tables, created when missing (or `?schema=` in the URL). @default 'public' */
  schema?: string;
  /** Prefix of the table names (or `?tablePrefix=` in the URL). @default 'chatstate_' */
  tablePrefix?: string;
  /** Most connections in the pool the store creates from a URL; unused with a caller's pool. @default 10 */
  maxConnections?: number;
}

/** Options of `postgresStore`: the driver's and the core's. */
export interface PostgresStoreOptions extends SessionStoreOptions, PostgresOptions {}

interface PgModule {
  Pool: new (config: { connectionString: string; max: number; fallback_application_name: string }) => OwnedPool;
}

const DEFAULT_SCHEMA = 'public';
const DEFAULT_PREFIX = 'chatstate_';

async function loadPg(): Promise<PgModule> {
  let module: { default?: Partial<PgModule>; Pool?: PgModule['Pool'] };
  try {
    module = (await import('pg')) as unknown as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InvalidInputError('MISSING_DEPENDENCY', `${STORE}: this store needs the \`pg\` package: npm install pg (or pass your own pool)`, {
        cause: error,
        details: { package: 'pg' },
      });
    }
    throw error;
  }
  const Pool = module.Pool ?? module.default?.Pool;
  if (typeof Pool !== 'function') throw new InvalidInputError('MISSING_DEPENDENCY', `${STORE}: the installed \`pg\` package has no Pool`, { details: { package: 'pg' } });
  return { Pool };
}

/** Splits a store URL into the `pg` connection string and the store's own `schema`/`tablePrefix` parameters. */
function parseUrl(url: string): { connectionString: string; schema?: string; tablePrefix?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    // The URL is not echoed: it may carry a password.
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: the connection URL is not a valid URL`, { cause: error });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: expected a postgres:// or postgresql:// URL, got ${parsed.protocol}`);
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  const tablePrefix = parsed.searchParams.get('tablePrefix') ?? undefined;
  if (schema === undefined && tablePrefix === undefined) return { connectionString: url };
  // Ours, not libpq's: removed before the URL reaches pg.
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('tablePrefix');
  return { connectionString: parsed.toString(), ...(schema === undefined ? {} : { schema }), ...(tablePrefix === undefined ? {} : { tablePrefix }) };
}

function isPool(value: unknown): value is PgPoolLike {
  return typeof value === 'object' && value !== null && typeof (value as { connect?: unknown }).connect === 'function';
}

/**
 * A Postgres driver on a URL (`postgres://user:pass@host/db?schema=app`) or on the caller's pool.
 * Creates or migrates the tables before it resolves. A pool the caller passed is never ended by `close`.
 */
export async function postgresDriver(urlOrPool: string | PgPoolLike, options: PostgresOptions = {}): Promise<StoreDriver> {
  let pool: PgPoolLike;
  let owned: OwnedPool | undefined;
  let fromUrl: { schema?: string; tablePrefix?: string } = {};
  if (typeof urlOrPool === 'string') {
    const { connectionString, ...rest } = parseUrl(urlOrPool);
    fromUrl = rest;
    const maxConnections = options.maxConnections ?? 10;
    if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: maxConnections must be a positive integer`);
    const { Pool } = await loadPg();
    owned = new Pool({ connectionString, max: maxConnections, fallback_application_name: 'chatstate' });
    // An idle connection that breaks (server restart, network) is reported as an 'error' event,
    // which would crash the process if nobody listened; the pool drops it and reconnects later.
    owned.on('error', () => undefined);
    pool = owned;
  } else if (isPool(urlOrPool)) {
    pool = urlOrPool;
  } else {
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: expected a postgres:// URL or a pool with connect()`);
  }
  try {
    const tables = tablesFor(options.schema ?? fromUrl.schema ?? DEFAULT_SCHEMA, options.tablePrefix ?? fromUrl.tablePrefix ?? DEFAULT_PREFIX);
    const driver = new PostgresDriver(pool, tables, owned);
    await driver.withClient((client) => migrate(client, tables));
    return driver;
  } catch (error) {
    await owned?.end().catch(() => undefined);
    throw error;
  }
}

/** ✱ A Postgres `SessionStore` on a URL or the caller's pool. */
export async function postgresStore(urlOrPool: string | PgPoolLike, options: PostgresStoreOptions = {}): Promise<SessionStore> {
  const { schema, tablePrefix, maxConnections, ...core } = options;
  const driverOptions: PostgresOptions = {
    ...(schema === undefined ? {} : { schema }),
    ...(tablePrefix === undefined ? {} : { tablePrefix }),
    ...(maxConnections === undefined ? {} : { maxConnections }),
  };
  return createSessionStore(await postgresDriver(urlOrPool, driverOptions), core);
}

