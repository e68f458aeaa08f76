/**
 * The conformance kit's `backup` power for the stores of the test suite: a copy of a store's
 * files, of a Postgres schema's rows, or of a Redis prefix's keys, kept apart as a backup is.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { SessionStoreOptions } from '../../src/store/session-store.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import type { StoreBackup } from '../../src/testing/index.js';

/** Every file under `dir`: its name, then its bytes. */
export function filesContents(dir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const full = join(at, name);
      parts.push(Buffer.from(`${full}\n`));
      if (statSync(full).isDirectory()) walk(full);
      else parts.push(readFileSync(full));
    }
  };
  walk(dir);
  return Buffer.concat(parts);
}

/**
 * A copy of the files in `dir` (as a file-level backup takes them; a SQLite file with its
 * write-ahead log), opened with `open(copy, options)`.
 */
export function directoryBackup(
  dir: string,
  open: (copy: string, options?: SessionStoreOptions) => Promise<SessionStore>,
): StoreBackup {
  const copy = mkdtempSync(join(tmpdir(), 'chatstate-backup-'));
  // A SQLite store's shared-memory index is not data: a new connection builds its own.
  cpSync(dir, copy, { recursive: true, filter: (source) => !source.endsWith('-shm') });
  return {
    open: (options) => open(copy, options),
    contents: async () => filesContents(copy),
    remove: async () => rmSync(copy, { recursive: true, force: true }),
  };
}

/** A copy of every table of `schema` into a new schema, rows included (indexes and defaults too; no triggers). */
export async function schemaBackup(
  url: string,
  schema: string,
  copy: string,
  open: (options?: SessionStoreOptions) => Promise<SessionStore>,
  contents: () => Promise<Buffer>,
): Promise<StoreBackup> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const id = (name: string): string => client.escapeIdentifier(name);
    await client.query(`CREATE SCHEMA ${id(copy)}`);
    const tables = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
      [schema],
    );
    for (const { name } of tables.rows) {
      const [from, to] = [`${id(schema)}.${id(name)}`, `${id(copy)}.${id(name)}`];
      await client.query(`CREATE TABLE ${to} (LIKE ${from} INCLUDING ALL)`);
      // Generated columns are computed again; the others are copied as they are.
      const columns = await client.query<{ name: string }>(
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0
          AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
        [from],
      );
      const list = columns.rows.map((column) => id(column.name)).join(', ');
      await client.query(`INSERT INTO ${to} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM ${from}`);
    }
  } finally {
    await client.end();
  }
  return {
    open,
    contents,
    async remove() {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${admin.escapeIdentifier(copy)} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * A copy of every key under `prefix` on `nodes` (each master of a cluster; its hash tags follow
 * the prefix, so a copy lands in the same slot) under `copy`, with its time to live.
 */
export async function keysBackup(
  nodes: readonly Redis[],
  prefix: string,
  copy: string,
  backup: Omit<StoreBackup, 'remove'>,
  remove: () => Promise<void>,
): Promise<StoreBackup> {
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      for (const key of keys) {
        const [dump, ttl] = await Promise.all([node.dumpBuffer(key), node.pttl(key)]);
        if (dump === null) continue;
        await node.restore(`${copy}${key.slice(prefix.length)}`, ttl > 0 ? ttl : 0, dump);
      }
      cursor = next;
    } while (cursor !== '0');
  }
  return { ...backup, remove };
}
