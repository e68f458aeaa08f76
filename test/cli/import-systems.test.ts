/**
 * `import --from SYSTEM` and `export --to SYSTEM` through the built bin: another system's files in
 * (problems listed, good sessions imported, exit 1 when some part was bad), and back out.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-systems-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const STATE = {
  id: 'coreason-1',
  agent_id: 'planner',
  user_id: 'u-204',
  created_at: '2026-02-07T09:30:00Z',
  updated_at: '2026-02-07T09:31:05.123456Z',
  history: [{ id: 'i-1', input: 'What is the tide at noon?' }],
  variables: { harbour: 'Leith' },
};

describe('import --from SYSTEM and export --to SYSTEM', () => {
  it('imports a Coreason dump, lists a damaged one with exit 1, and imports it again as unchanged', async () => {
    const source = join(dir, 'coreason');
    await mkdir(source);
    await writeFile(join(source, 'good.json'), JSON.stringify(STATE));
    await writeFile(join(source, 'bad.json'), '{"agent_id": "planner", "history": 7}');
    const url = `file:${join(dir, 'store-1')}`;
    const first = await runCli(['import', '--from', 'coreason', source, '--store', url]);
    expect(first.code).toBe(1);
    expect(first.stdout).toBe('1 imported, 0 already there, 1 not readable\n');
    expect(first.stderr).toMatch(/^warning: .*bad\.json.*: INVALID_ARGUMENT: /m);
    const exported = await runCli(['export', 'coreason-1', '--store', url]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      session: { id: 'coreason-1', agentId: 'planner', userId: 'u-204', variables: { harbour: 'Leith' } },
    });
    const good = join(dir, 'good-only.json');
    await writeFile(good, JSON.stringify(STATE));
    const again = await runCli(['import', '--from', 'coreason', good, '--store', url]);
    expect(again).toMatchObject({ code: 0, stdout: '0 imported, 1 already there\n' });
  });

  it('exports to goaitools blobs and imports them back', async () => {
    const url = `file:${join(dir, 'store-2')}`;
    const wire = JSON.stringify([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there' },
    ]);
    expect(
      (await runCli(['import', '-', '--from', 'openaiChat', '--id', 'g-1', '--store', url], { input: wire })).code,
    ).toBe(0);
    const out = join(dir, 'blobs');
    const exported = await runCli(['export', '--to', 'goaitools', out, '--all', '--store', url]);
    expect(exported.stderr).toMatch(/exported 1 sessions to .*blobs \(1 files, goaitools format\)/);
    expect(exported.code).toBe(0);
    expect(await readdir(out)).toEqual(['g-1.json']);
    const back = `file:${join(dir, 'store-3')}`;
    const imported = await runCli(['import', '--from', 'goaitools', out, '--store', back]);
    expect(imported).toMatchObject({ code: 0, stdout: '1 imported, 0 already there\n' });
    const shown = await runCli(['export', '--all', '--store', back]);
    expect(shown.stdout).toContain('Hi there');
  });

  it('passes --set NAME=VALUE to the importer, and refuses a setting it does not take', async () => {
    const file = join(dir, 'custom-agents.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE chat_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE chat_items (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`);
    db.prepare("INSERT INTO chat_sessions (session_id) VALUES ('agents-custom')").run();
    db.prepare("INSERT INTO chat_items (session_id, message_data) VALUES ('agents-custom', ?)").run(
      JSON.stringify({ role: 'user', content: 'custom tables' }),
    );
    db.close();
    const url = `file:${join(dir, 'store-set')}`;
    const withoutTables = await runCli(['import', '--from', 'openai-agents', file, '--store', url]);
    expect(withoutTables.code).not.toBe(0);
    expect(withoutTables.stderr).toContain('agent_messages');
    const imported = await runCli([
      'import',
      '--from',
      'openai-agents',
      '--set',
      'sessionsTable=chat_sessions',
      '--set',
      'messagesTable=chat_items',
      file,
      '--store',
      url,
    ]);
    expect(imported).toMatchObject({ code: 0, stdout: '1 imported, 0 already there\n' });
    expect((await runCli(['export', 'agents-custom', '--store', url])).stdout).toContain('custom tables');
    const unknown = await runCli(['import', '--from', 'penguin', '--set', 'channel=x', file, '--store', url]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^error INVALID_ARGUMENT: The penguin importer has no setting "channel"; it takes none/,
    );
    const malformed = await runCli(['import', '--from', 'langgraph', '--set', 'channel', file, '--store', url]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('expected NAME=VALUE');
  });

  it('names the known systems for an unknown one (usage error, exit 2)', async () => {
    const result = await runCli(['import', '--from', 'nowhere', join(dir, 'x'), '--store', 'memory:']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error INVALID_ARGUMENT: No importer for "nowhere"; known: .*coreason/);
  });
});
