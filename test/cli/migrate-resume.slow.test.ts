/**
 * `migrate` killed halfway (SIGKILL of the real process) and run again finishes the copy, with
 * nothing duplicated, and `--verify` finds the target equal to the source.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { BIN, ROOT, ensureBuilt, runCli } from './cli-process.js';

beforeAll(ensureBuilt, 600_000);

const SESSIONS = 300;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-resume-'));
  const store = await openStore(`file:${join(dir, 'source')}`);
  try {
    for (let n = 0; n < SESSIONS; n += 1) {
      const messages = Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0 ? Message.user(`question ${n}.${i} ${'x'.repeat(200)}`) : Message.assistant(`answer ${n}.${i}`),
      );
      await store.save(Session.create({ id: `r-${n}`, userId: `u-${n % 7}`, messages }));
      await store.values.set({ scope: 'session', sessionId: `r-${n}` }, { n });
    }
    await store.values.set({ scope: 'user', userId: 'u-1' }, { plan: 'pro' });
  } finally {
    await store.close();
  }
}, 300_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Sessions in the target database so far (0 before its schema exists). */
function copied(path: string): number {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

describe('migrate, interrupted', () => {
  it('finishes when run again after a SIGKILL halfway, duplicates nothing, and verifies equal', async () => {
    const source = `file:${join(dir, 'source')}`;
    const targetPath = join(dir, 'target.db');
    const target = `sqlite:${targetPath}`;
    const child = spawn(process.execPath, [BIN, 'migrate', '--from', source, '--to', target, '--concurrency', '2'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    let atKill = 0;
    for (const started = Date.now(); Date.now() - started < 60_000;) {
      atKill = copied(targetPath);
      if (atKill >= SESSIONS / 10) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = copied(targetPath);
    // Killed halfway: some sessions copied, not all.
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(SESSIONS);

    const rerun = await runCli(['migrate', '--from', source, '--to', target]);
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    const counts = /: (\d+) copied, (\d+) already there\n$/.exec(rerun.stdout);
    expect(counts).not.toBeNull();
    const [, made, there] = counts as RegExpExecArray;
    expect(Number(made) + Number(there)).toBe(SESSIONS);
    expect(Number(there)).toBeGreaterThanOrEqual(before);
    expect(copied(targetPath)).toBe(SESSIONS);

    const verified = await runCli(['migrate', '--from', source, '--to', target, '--verify']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(
      new RegExp(
        `: 0 copied, ${SESSIONS} already there\\nverified: the target holds all ${SESSIONS} sessions, equal\\n$`,
      ),
    );
  }, 300_000);
});
