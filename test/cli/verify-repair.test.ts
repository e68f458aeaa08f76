/**
 * `verify` and `repair` on damaged stores, through the built bin: the file store's damage found
 * (exit 1), repaired by the read and told as a notice afterwards (exit 0); a SQLite record no store
 * can recover reported as not repairable (exit 1).
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { runCli } from './cli-process.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A file store holding `ok` and `hurt`; `hurt` was saved twice and its snapshot overwritten with garbage. */
async function damagedFileStore(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-damage-'));
  dirs.push(dir);
  const store = await openStore(`file:${dir}`);
  await store.save(Session.create({ id: 'ok' }).append(Message.user('fine'), Message.assistant('yes')));
  const hurt = await store.save(Session.create({ id: 'hurt' }).append(Message.user('first'), Message.assistant('one')));
  await store.save(hurt.append(Message.user('second')), { expectedVersion: hurt.version });
  await store.close();
  writeFileSync(join(dir, 'sessions', 'hurt', 'snapshot'), 'not a snapshot\n'.repeat(10));
  return `file:${dir}`;
}

describe('verify and repair on damaged stores', () => {
  it('verify finds the file store’s damage (exit 1), then only its recovery notice (exit 0)', async () => {
    const url = await damagedFileStore();
    const first = await runCli(['verify', '--store', url]);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/^hurt {2}problem {2}damage {2}restored-from-backup: .*repaired by this read/m);
    expect(first.stdout).toMatch(/checked 2 sessions: 1 with problems\n$/);
    const second = await runCli(['verify', '--store', url, '--json']);
    expect(second.code).toBe(0);
    const report = JSON.parse(second.stdout) as { ok: boolean; findings: Array<Record<string, unknown>> };
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([
      expect.objectContaining({
        sessionId: 'hurt',
        check: 'recovery',
        severity: 'notice',
        code: 'restored-from-backup',
      }),
    ]);
  });

  it('repair says what the file store repaired, and nothing the second time', async () => {
    const url = await damagedFileStore();
    const first = await runCli(['repair', '--store', url]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^hurt {2}repaired {2}restored-from-backup: .*lost\+found/m);
    expect(first.stdout).toMatch(/checked 2 sessions: 1 repaired, 0 not repairable\n$/);
    const second = await runCli(['repair', '--store', url]);
    expect(second).toMatchObject({ code: 0, stdout: 'checked 2 sessions: 0 repaired, 0 not repairable\n', stderr: '' });
  });

  it('repair reports a SQLite session it cannot recover (exit 1) and says the store keeps no backups', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-damage-'));
    dirs.push(dir);
    const path = join(dir, 'chat.db');
    const store = await openStore(`sqlite:${path}`);
    await store.save(Session.create({ id: 'broken' }).append(Message.user('hello')));
    await store.close();
    const db = new Database(path);
    db.prepare(`UPDATE messages SET data = '{oops' WHERE session_id = 'broken'`).run();
    db.close();
    const result = await runCli(['repair', '--store', `sqlite:${path}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^broken {2}unrepairable {2}sqlite cannot recover it: /m);
    expect(result.stderr).toMatch(/this store keeps no backups/);
    const verified = await runCli(['verify', '--store', `sqlite:${path}`]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/^broken {2}problem {2}read {2}CORRUPT: /m);
  });
});
