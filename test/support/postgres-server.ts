/**
 * A Postgres server for the tests: `CHATSTATE_TEST_POSTGRES_URL` when it is set, otherwise a
 * throwaway cluster made with the local `initdb`/`pg_ctl` in a temp directory, on a free port,
 * removed afterwards. Postgres refuses to run as root, so as root the binaries run as the
 * `postgres` OS user. Clusters left behind by a killed test run are swept at the next start.
 *
 * Outside CI a machine without a server skips the Postgres suites with the reason; under `CI=true`
 * it fails them. On Debian the binaries come from `apt-get install -y postgresql` (which also
 * creates the `postgres` user); `util-linux` provides `runuser`.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** A running server the tests may use. */
export interface PostgresTestServer {
  /** Connection URL of a superuser (`postgres://…`). */
  readonly url: string;
  /** `external` for `CHATSTATE_TEST_POSTGRES_URL`, `throwaway` for a cluster started here. */
  readonly kind: 'external' | 'throwaway';
  /** Stops and removes a throwaway cluster; leaves an external server alone. */
  stop(): Promise<void>;
  /**
   * Throwaway only: stops the server the hard way (`pg_ctl stop -m immediate`: every backend quits
   * at once, no shutdown checkpoint, crash recovery at the next start), keeping its data.
   */
  kill?(): Promise<void>;
  /** Throwaway only: starts a killed server again, on the same port and data directory. */
  restart?(): Promise<void>;
}

/** Whether a server can be had here, and how; or why not. */
export type PostgresAvailability =
  { readonly ok: true; start(): Promise<PostgresTestServer> } | { readonly ok: false; readonly reason: string };

// The owning test process's pid is part of the directory's name, so a sweeping process never
// mistakes a cluster that is still being created for a leftover.
const DIR_PREFIX = 'chatstate-pg-';
const DIR_PATTERN = /^chatstate-pg-(\d+)-/;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Directories that may hold `initdb` and `pg_ctl`: PATH first, then where distributions put them. */
function candidateDirs(): string[] {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir.length > 0);
  // Debian and Ubuntu keep the server binaries out of PATH, one directory per major version.
  for (const root of ['/usr/lib/postgresql']) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((version) => join(root, version, 'bin')));
  }
  dirs.push('/usr/local/pgsql/bin', '/opt/homebrew/bin', '/usr/local/opt/postgresql/bin');
  return dirs;
}

function findBinDir(): string | undefined {
  return candidateDirs().find((dir) => executable(join(dir, 'initdb')) && executable(join(dir, 'pg_ctl')));
}

interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

function postgresUser(): OsUser | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'));
    const fields = line?.split(':');
    if (fields === undefined || fields.length < 4) return undefined;
    return { uid: Number(fields[2]), gid: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** How to run a binary as the right user: directly, or (as root) through `runuser`/`su` as `postgres`. */
function runnerFor(user: OsUser | undefined): (command: string, args: string[]) => { command: string; args: string[] } {
  if (user === undefined) return (command, args) => ({ command, args });
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(executable);
  if (runuser !== undefined)
    return (command, args) => ({ command: runuser, args: ['-u', 'postgres', '--', command, ...args] });
  // su takes one shell string: every argument here is a path or flag of ours, quoted anyway.
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  return (command, args) => ({
    command: 'su',
    args: ['-s', '/bin/sh', 'postgres', '-c', [command, ...args].map(quote).join(' ')],
  });
}

function cleanEnv(): NodeJS.ProcessEnv {
  // Stray PG* variables (PGDATA, PGPORT, PGHOST…) would redirect initdb and pg_ctl.
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  for (const key of Object.keys(env)) if (key.startsWith('PG')) delete env[key];
  return env;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a Postgres server can be had on this machine (checked without starting one). */
export function findPostgres(): PostgresAvailability {
  const external = process.env.CHATSTATE_TEST_POSTGRES_URL;
  if (external !== undefined && external.length > 0) {
    return { ok: true, start: async () => ({ url: external, kind: 'external', stop: async () => undefined }) };
  }
  const binDir = findBinDir();
  if (binDir === undefined) {
    return {
      ok: false,
      reason: 'no CHATSTATE_TEST_POSTGRES_URL and no initdb/pg_ctl found (apt-get install -y postgresql)',
    };
  }
  const root = process.getuid?.() === 0;
  const user = root ? postgresUser() : undefined;
  if (root && user === undefined) {
    return {
      ok: false,
      reason: 'running as root (which Postgres refuses) and there is no postgres OS user to run it as',
    };
  }
  return { ok: true, start: () => startThrowaway(binDir, user) };
}

/** Stops and removes clusters whose test process is gone (killed runs leave them behind). */
function sweepLeftovers(base: string, binDir: string, run: ReturnType<typeof runnerFor>): void {
  for (const name of readdirSync(base)) {
    const owner = DIR_PATTERN.exec(name)?.[1];
    if (owner === undefined || alive(Number(owner))) continue;
    const dir = join(base, name);
    stopCluster(binDir, run, dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

function stopCluster(binDir: string, run: ReturnType<typeof runnerFor>, dir: string): void {
  if (!existsSync(join(dir, 'data', 'postmaster.pid'))) return;
  const stop = run(join(binDir, 'pg_ctl'), ['stop', '-D', join(dir, 'data'), '-m', 'immediate', '-w', '-t', '30']);
  spawnSync(stop.command, stop.args, { env: cleanEnv(), stdio: 'ignore' });
}

async function startThrowaway(binDir: string, user: OsUser | undefined): Promise<PostgresTestServer> {
  const run = runnerFor(user);
  // The postgres user must be able to reach the directory: a root-only TMPDIR would not do.
  const base = user === undefined ? tmpdir() : '/tmp';
  sweepLeftovers(base, binDir, run);
  const dir = mkdtempSync(join(base, `${DIR_PREFIX}${process.pid}-`));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const exec = (command: string, args: string[]) => {
    const call = run(join(binDir, command), args);
    try {
      execFileSync(call.command, call.args, { env: cleanEnv(), stdio: 'pipe', timeout: 120_000 });
    } catch (error) {
      const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
      throw new Error(`${command} ${args[0] ?? ''} failed: ${(error as Error).message}\n${output}\n${log}`, {
        cause: error,
      });
    }
  };
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    stopCluster(binDir, run, dir);
    rmSync(dir, { recursive: true, force: true });
  };
  // A test process that exits without afterAll (a crash, a timeout) still takes its cluster down.
  process.once('exit', stopNow);
  // The same command without blocking the event loop, for kills and restarts in the middle of a test.
  const execAsync = (command: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const call = run(join(binDir, command), args);
      execFile(call.command, call.args, { env: cleanEnv(), timeout: 120_000 }, (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`${command} ${args[0] ?? ''} failed: ${error.message}\n${stderr}`, { cause: error }));
      });
    });
  // The socket directory is ours too, so nothing is written to /var/run/postgresql.
  const startArgs = (port: number) => [
    'start',
    '-D',
    join(dir, 'data'),
    '-w',
    '-t',
    '60',
    '-l',
    join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`,
  ];
  try {
    // --no-sync only for initdb's own files: the running server keeps fsync on, as in production.
    exec('initdb', [
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const port = await freePort();
      try {
        exec('pg_ctl', startArgs(port));
        return {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          kind: 'throwaway',
          stop: async () => {
            process.removeListener('exit', stopNow);
            stopNow();
          },
          kill: () => execAsync('pg_ctl', ['stop', '-D', join(dir, 'data'), '-m', 'immediate', '-w', '-t', '60']),
          restart: () => execAsync('pg_ctl', startArgs(port)),
        };
      } catch (error) {
        // Most likely another process took the port between our probe and the server's bind.
        lastError = error;
      }
    }
    throw lastError;
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}

/** A schema name no other test uses, so tests sharing one server never see each other's tables. */
export function freshSchema(label = 'test'): string {
  return `cs_${label.replace(/[^a-z0-9_]/gi, '_').slice(0, 20)}_${randomBytes(5).toString('hex')}`;
}

/** Runs one SQL statement on `url` with a short-lived connection (test setup and damage only). */
export async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/**
 * Everything the tables of `schema` hold, as Postgres reads it back (a TOASTed value decompressed):
 * each table's name, then each of its rows as text (`SELECT t::text`), one a line. Deleted rows
 * that `VACUUM` has not reclaimed are in the table files, but in no table's contents: not read.
 */
export async function schemaContents(url: string, schema: string): Promise<Buffer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Ordinary tables only (a partition is one too): views and sequences hold no rows of their own.
    const tables = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
      [schema],
    );
    const lines: string[] = [];
    for (const { name } of tables.rows) {
      const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(name)}`;
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`);
      lines.push(name, ...rows.rows.map((row) => row.row));
    }
    return Buffer.from(lines.join('\n'), 'utf8');
  } finally {
    await client.end();
  }
}

/**
 * `describe` with a Postgres server: started before the suite and stopped after it. Without a server
 * the suite is skipped with the reason in its name, or fails under `CI=true`.
 */
export function describeWithPostgres(name: string, body: (server: () => PostgresTestServer) => void): void {
  const found = findPostgres();
  if (!found.ok) {
    if (process.env.CI === 'true') {
      describe(name, () => {
        it('needs a Postgres server under CI=true', () => {
          throw new Error(`CI=true and no Postgres server: ${found.reason}`);
        });
      });
      return;
    }
    console.warn(`[chatstate] ${name} skipped: ${found.reason}`);
    describe.skip(`${name} (skipped: ${found.reason})`, () => {
      it('needs a Postgres server', () => undefined);
    });
    return;
  }
  describe(name, () => {
    let server: PostgresTestServer | undefined;
    beforeAll(async () => {
      server = await found.start();
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });
    body(() => {
      if (server === undefined) throw new Error('the Postgres server did not start');
      return server;
    });
  });
}
