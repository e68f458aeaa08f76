/**
 * export, import, verify, repair and migrate against every store of the matrix: the built bin as a
 * real process. An export imported into a fresh store gives back equal sessions and values
 * (checked by `migrate --verify`, which compares both stores, and by exporting again).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { cliStores } from './cli-stores.js';
import { seed } from './seed.js';

/** Export lines with `updatedAt` (set by each store's own write) left out, for comparing two stores. */
function comparable(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const entry = JSON.parse(line) as { session?: { updatedAt?: string }; expiresAt?: string };
      if (entry.session !== undefined) delete entry.session.updatedAt;
      delete entry.expiresAt;
      return JSON.stringify(entry);
    })
    .sort();
}

/** The note a command that writes gives when the `file:` or `sqlite:` store at `url` is new ('' for other stores). */
function newStoreNote(url: string): string {
  const path = /^(?:file|sqlite):(.*)$/.exec(url)?.[1];
  return path === undefined ? '' : `new store at ${path} (it did not exist)\n`;
}

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempFile(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-export-'));
  dirs.push(dir);
  return join(dir, name);
}

describeEachStore(
  cliStores().filter((store) => store.shared),
  'export, import, verify, repair and migrate: $name',
  (store) => {
    let skipped: string | undefined;
    let seeded = '';

    beforeAll(async () => {
      skipped = await store.start();
      if (skipped === undefined) {
        seeded = await store.freshUrl();
        await seed(seeded);
      }
    }, 180_000);
    afterAll(() => store.stop());

    it('exports every session as JSON lines that import gives back equal, and import twice changes nothing', async (context) => {
      if (skipped !== undefined) context.skip(skipped);
      const exported = await runCli(['export', '--all', '--store', seeded]);
      expect(exported).toMatchObject({ code: 0, stderr: '' });
      const lines = comparable(exported.stdout);
      // trip, chain-a, chain-b, old (gone has expired); alice's value travels with each of her sessions.
      expect(lines).toHaveLength(4);
      expect(lines.join('\n')).toContain('"user":{"theme":"dark"}');
      const file = await tempFile('backup.jsonl');
      await writeFile(file, exported.stdout);
      const target = await store.freshUrl();
      const imported = await runCli(['import', file, '--store', target]);
      expect(imported).toMatchObject({
        code: 0,
        stdout: '4 imported, 0 already there\n',
        stderr: newStoreNote(target),
      });
      const again = await runCli(['import', '-', '--store', target], { input: exported.stdout });
      expect(again).toMatchObject({ code: 0, stdout: '0 imported, 4 already there\n' });
      expect(comparable((await runCli(['export', '--all', '--store', target])).stdout)).toEqual(lines);
      const verified = await runCli(['verify', '--store', target]);
      expect(verified).toMatchObject({ code: 0, stdout: '', stderr: 'checked 4 sessions: no problems\n' });
      const repaired = await runCli(['repair', '--store', target, '--quiet']);
      expect(repaired).toMatchObject({ code: 0, stdout: 'checked 4 sessions: 0 repaired, 0 not repairable\n' });
    });

    it('refuses an import whose session differs with CONFLICT, exit 1, and --replace overwrites it', async (context) => {
      if (skipped !== undefined) context.skip(skipped);
      const exported = await runCli(['export', 'trip', '--store', seeded]);
      expect(exported.code).toBe(0);
      const entry = JSON.parse(exported.stdout) as { session: { messages: Array<{ content: unknown }> } };
      (entry.session.messages[0] as { content: unknown }).content = 'Changed question';
      const changed = `${JSON.stringify(entry)}\n`;
      const target = await store.freshUrl();
      expect((await runCli(['import', '-', '--store', target], { input: exported.stdout })).code).toBe(0);
      const refused = await runCli(['import', '-', '--store', target], { input: changed });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('0 imported, 0 already there, 1 conflicts\n');
      expect(refused.stderr).toMatch(
        /^error CONFLICT: 1 session already in the store differs: trip \(--replace overwrites them\)\n$/,
      );
      const replaced = await runCli(['import', '-', '--replace', '--store', target], { input: changed });
      expect(replaced).toMatchObject({ code: 0, stdout: '0 imported, 0 already there, 1 replaced\n' });
      const shown = await runCli(['export', 'trip', '--store', target]);
      expect(shown.stdout).toContain('Changed question');
    });

    it('migrates to another store with --verify, and a second run copies nothing', async (context) => {
      if (skipped !== undefined) context.skip(skipped);
      const target = `sqlite:${await tempFile('target.db')}`;
      const first = await runCli(['migrate', '--from', seeded, '--to', target, '--verify']);
      expect(first.stderr).toBe(newStoreNote(target));
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/: 4 copied, 0 already there\nverified: the target holds all 4 sessions, equal\n$/);
      const second = await runCli(['migrate', '--from', seeded, '--to', target, '--verify', '--json']);
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({
        sessions: 4,
        created: 0,
        unchanged: 4,
        verify: { equal: true },
      });
      const back = await store.freshUrl();
      const returned = await runCli(['migrate', '--store', target, '--to', back, '--verify']);
      expect(returned).toMatchObject({ code: 0 });
      expect(returned.stdout).toMatch(/verified/);
    });

    it('verifies named sessions: a missing one is a problem, exit 1; --json gives the report', async (context) => {
      if (skipped !== undefined) context.skip(skipped);
      const result = await runCli(['verify', 'trip', 'nope', '--store', seeded]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe(
        'nope  problem  read  NOT_FOUND: no session nope\nchecked 2 sessions: 1 with problems\n',
      );
      const json = await runCli(['verify', 'trip', '--json', '--store', seeded]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ checked: 1, failed: 0, ok: true });
    });
  },
);

describe('import and export usage', () => {
  it('lists bad lines with their number, imports the good ones, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-import-'));
    dirs.push(dir);
    const url = `file:${join(dir, 'store')}`;
    const good = JSON.stringify({
      formatVersion: 1,
      id: 'plain',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      version: 1,
      messages: [],
      variables: {},
      metadata: {},
    });
    const result = await runCli(['import', '-', '--store', url], { input: `${good}\n{oops\n` });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('1 imported, 0 already there, 1 not readable\n');
    expect(result.stderr).toMatch(
      /^new store at .* \(it did not exist\)\nwarning: -:2: INVALID_ARGUMENT: line 2: not JSON/,
    );
  });

  it('imports a provider wire history as a new session', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-import-'));
    dirs.push(dir);
    const url = `file:${join(dir, 'store')}`;
    const wire = JSON.stringify({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: 'hello' },
      ],
    });
    const result = await runCli(['import', '-', '--from', 'anthropic', '--id', 'wire-1', '--store', url], {
      input: wire,
    });
    expect(result).toMatchObject({ code: 0, stdout: '1 imported, 0 already there\n' });
    const shown = await runCli(['export', 'wire-1', '--store', url]);
    expect(shown.stdout).toContain('"hello"');
  });

  it('refuses export without ids or --all, an unknown system, and a missing file', async () => {
    const none = await runCli(['export', '--store', 'memory:']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error INVALID_ARGUMENT: Name session ids or choose all sessions/);
    const system = await runCli(['export', '--all', '--to', 'nowhere', './x', '--store', 'memory:']);
    expect(system.code).toBe(2);
    expect(system.stderr).toMatch(/^error INVALID_ARGUMENT: No exporter for "nowhere"/);
    const missing = await runCli(['import', '/no/such/file.jsonl', '--store', 'memory:']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error NOT_FOUND: Cannot read "\/no\/such\/file.jsonl"/);
    const help = await runCli(['help', 'migrate']);
    expect(help.stdout).toMatch(/Examples:\n {2}\$ chatstate migrate --from/);
  });
});
