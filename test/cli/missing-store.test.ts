/**
 * A `file:` or `sqlite:` store that does not exist (issue 21: `chatstate list --store
 * file:./typo-dir` printed an empty table and exited 0): a command that reads refuses it with
 * NOT_FOUND naming the path and creates nothing; a command that writes starts it and says so on
 * stderr (a note `--quiet` silences). The built bin as a real process.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/stores/open-store.js';
import { ensureBuilt, runCli } from './cli-process.js';
import { seed } from './seed.js';

beforeAll(ensureBuilt, 600_000);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-missing-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Commands that only read (or change what is there): each is refused on a missing store. */
const READS: ReadonlyArray<readonly string[]> = [
  ['list'],
  ['list', '--json'],
  ['show', 'trip'],
  ['stats', '--all'],
  ['stats', 'trip'],
  ['search', 'weather', '--user', 'alice'],
  ['export', '--all'],
  ['verify'],
  ['repair'],
  ['values', 'get', 'theme', '--scope', 'app'],
  ['values', 'list', '--scope', 'app'],
  ['values', 'unset', 'theme', '--scope', 'app'],
  ['compact', 'trip', '--strategy', 'slidingWindow', '--turns', '1'],
  ['fork', 'trip'],
  ['delete', 'trip', '--yes'],
  ['purge-expired'],
];

const KINDS = [
  { name: 'file', url: (path: string) => `file:${path}`, what: 'directory' },
  { name: 'sqlite', url: (path: string) => `sqlite:${path}`, what: 'database file' },
] as const;

let count = 0;
/** A path under the test directory that does not exist. */
const fresh = (name: string): string => join(dir, `${name}-${++count}`, name === 'sqlite' ? 'chat.db' : 'store');

// The local stores only: a path that is not there means nothing to memory:, Postgres or Redis.
describe.each(KINDS)('a $name: store that does not exist', (kind) => {
  it.each(READS.map((command) => [command.join(' '), command] as const))(
    'is refused by "%s" with NOT_FOUND naming the path, and nothing is created',
    async (_name, command) => {
      const path = fresh(kind.name);
      const url = kind.url(path);
      const result = await runCli([...command, '--store', url]);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error NOT_FOUND: Cannot open store ${JSON.stringify(url)}: no store at ${path} (the ${kind.what} does not exist): ` +
          'check --store or CHATSTATE_STORE; a command that writes (import, values set, migrate --to, serve) creates it\n',
      );
      expect(result.code).toBe(1);
      expect(existsSync(path)).toBe(false);
      expect(existsSync(join(path, '..'))).toBe(false);
    },
  );

  it('is started by import, values set and migrate --to, each saying so on stderr (not with --quiet)', async () => {
    const backup = join(dir, `backup-${kind.name}.jsonl`);
    const seeded = `file:${fresh('seeded')}`;
    await seed(seeded);
    await writeFile(backup, (await runCli(['export', 'trip', '--store', seeded])).stdout);

    const imported = fresh(kind.name);
    expect(await runCli(['import', backup, '--store', kind.url(imported)])).toEqual({
      code: 0,
      stdout: '1 imported, 0 already there\n',
      stderr: `new store at ${imported} (it did not exist)\n`,
    });
    // There now: no note the second time.
    expect(await runCli(['import', backup, '--store', kind.url(imported)])).toEqual({
      code: 0,
      stdout: '0 imported, 1 already there\n',
      stderr: '',
    });
    expect((await runCli(['show', 'trip', '--store', kind.url(imported)])).code).toBe(0);

    const quiet = fresh(kind.name);
    expect(await runCli(['import', backup, '--quiet', '--store', kind.url(quiet)])).toEqual({
      code: 0,
      stdout: '1 imported, 0 already there\n',
      stderr: '',
    });

    const valued = fresh(kind.name);
    const set = await runCli(['values', 'set', 'theme', 'dark', '--scope', 'app', '--store', kind.url(valued)]);
    expect(set).toEqual({
      code: 0,
      stdout: '',
      stderr: `new store at ${valued} (it did not exist)\nset theme (app scope)\n`,
    });
    expect(await runCli(['values', 'get', 'theme', '--scope', 'app', '--store', kind.url(valued)])).toMatchObject({
      code: 0,
      stdout: '"dark"\n',
    });

    const migrated = fresh(kind.name);
    const copied = await runCli(['migrate', '--from', seeded, '--to', kind.url(migrated)]);
    expect(copied.code).toBe(0);
    expect(copied.stderr).toBe(`new store at ${migrated} (it did not exist)\n`);
    const store = await openStore(kind.url(migrated));
    try {
      expect((await store.list()).map((row) => row.id).sort()).toEqual(['chain-a', 'chain-b', 'old', 'trip']);
    } finally {
      await store.close();
    }
  });

  it('is refused as the source of a migrate, and an import of a missing file starts no store', async () => {
    const source = fresh(kind.name);
    const target = join(dir, `target-${kind.name}-${++count}.db`);
    const refused = await runCli(['migrate', '--from', kind.url(source), '--to', `sqlite:${target}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error NOT_FOUND: Cannot open store "[^"]+": no store at /);
    expect([existsSync(source), existsSync(target)]).toEqual([false, false]);
    const path = fresh(kind.name);
    const missing = await runCli(['import', join(dir, 'no-such-backup.jsonl'), '--store', kind.url(path)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error NOT_FOUND: Cannot read /);
    expect(existsSync(path)).toBe(false);
  });
});

describe('the default store, and a file: URL naming a file', () => {
  it('file:./.chatstate in a directory without one is refused by list, naming the directory', async () => {
    const cwd = await mkdtemp(join(dir, 'cwd-'));
    const result = await runCli(['list'], { cwd });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      new RegExp(
        `^error NOT_FOUND: Cannot open store "file:\\./\\.chatstate": no store at ${join(cwd, '.chatstate').replace(/[.]/g, '\\.')} `,
      ),
    );
    expect(await readdir(cwd)).toEqual([]);
  });

  it('is INVALID_ARGUMENT (exit 2) for reads and writes alike, pointing a database at sqlite:', async () => {
    const file = join(dir, 'chat.db');
    await writeFile(file, 'not a directory');
    for (const command of [['list'], ['values', 'set', 'k', 'v', '--scope', 'app']]) {
      const result = await runCli([...command, '--store', `file:${file}`]);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error INVALID_ARGUMENT: Cannot open store "file:${file}": ${file} is a file, not a store directory (a file: store is a directory; a SQLite database is sqlite:${file})\n`,
      });
    }
  });
});
