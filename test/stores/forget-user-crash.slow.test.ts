/**
 * forgetUser cut short by SIGKILL, on the embedded stores (file, SQLite): a child process runs
 * `forgetUser` on a user with many sessions (saved over and appended to, so backups and journals
 * exist), values in every scope and stored vectors, and is killed at a seeded random moment while
 * it runs (sometimes a second child is killed on what the first left). After each round a re-run
 * in this process completes and counts exactly the sessions that were left, a third run counts
 * zeros, no byte of the store's directory (the SQLite file, its WAL and shared memory included)
 * holds the round's marker, and another user's sessions (`getJson` bytes) and values are unchanged.
 *
 * Each store: one calibration run (not killed) that measures how long a forget takes, then rounds
 * until KILLS kills, each at a delay drawn from that duration: most land mid-way, and the test
 * checks that enough did.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { ForgetCounts, SessionStore, ValueOwner } from '../../src/store/session-store-types.js';
import { NO_COUNTS } from '../../src/store/forget.js';
import { fileStore } from '../../src/stores/file/index.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { bundledScript } from '../support/bundled-script.js';
import { seededRandom } from '../support/seeded-random.js';

const CHILD = fileURLToPath(new URL('../support/forget-user-crash-child.ts', import.meta.url));
const SEED = 20_261_129;
/** SIGKILLs per store. */
const KILLS = 20;
/** Sessions of the forgotten user per round. */
const SESSIONS = 30;
/** A child that neither finishes nor is killed by then has hung. */
const CHILD_TIMEOUT_MS = 30_000;

type Kind = 'file' | 'sqlite';

let root: string;
const report: string[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-forget-crash-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  // The figures the test is measured by, for the report.
  for (const line of report) console.info(line);
});

/** A marker no other data holds: lowercase letters, so a full-text index keeps it as one term. */
function marker(): string {
  return `zq${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (digit) => 'abcdefghij'[Number(digit)] as string)}`;
}

/** Every file under `dir` whose name or bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (name.includes(needle)) found.push(full);
      if (statSync(full).isDirectory()) walk(full);
      else if (readFileSync(full).includes(bytes)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** `count` sessions of `user`, each saved over and appended to, with values in every scope. */
async function plant(store: SessionStore, user: string, mark: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${mark}-${index}`);
  for (const id of ids) {
    const saved = await store.save(
      Session.create({
        id,
        userId: user,
        agentId: 'helper',
        messages: [Message.user(`my secret is ${mark} alpha`), Message.assistant(`noted ${mark}`)],
      }),
    );
    await store.append(id, [Message.user(`and ${mark} again`)]);
    // A whole save over it: the file store keeps the previous snapshot as a backup.
    await store.save((await store.load(id)).append(Message.assistant(`still ${mark}`)), {
      expectedVersion: saved.version + 1,
    });
    await store.append(id, [Message.user(`last ${mark}`)]);
    await store.values.set({ scope: 'session', sessionId: id }, { 'embed/default/3/0': `${mark} vector`, side: mark });
  }
  await store.values.set({ scope: 'user', userId: user }, { likes: `${mark} tea` });
  await store.values.set({ scope: 'agent', agentId: 'helper', userId: user }, { note: `${mark} note` });
  await store.values.set({ scope: 'agent', agentId: 'other-agent', userId: user }, { note: `${mark} other` });
  return ids;
}

/** What the kept user has: the bytes of each session, and every value of theirs. */
async function snapshotOf(store: SessionStore, user: string, ids: readonly string[]): Promise<unknown> {
  const owners: ValueOwner[] = [
    { scope: 'user', userId: user },
    { scope: 'agent', agentId: 'helper', userId: user },
    ...ids.map((sessionId) => ({ scope: 'session', sessionId }) as const),
  ];
  return {
    sessions: await Promise.all(ids.map((id) => store.getJson(id))),
    rows: await store.list({ userId: user, limit: 1000 }),
    values: await Promise.all(owners.map((owner) => store.values.getAll(owner))),
  };
}

/** How one child ended. */
interface Run {
  readonly killed: boolean;
  readonly done: boolean;
  /** Milliseconds from READY to DONE, when it finished. */
  readonly forgetMs?: number;
  readonly stderr: string;
  readonly code: number | null;
}

/** Runs the child; SIGKILLs it `delayMs` after READY (never, when undefined). */
async function runChild(kind: Kind, location: string, user: string, delayMs: number | undefined): Promise<Run> {
  const bundle = await bundledScript(CHILD);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, kind, location, user], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let ready = 0;
    let done = 0;
    let timer: NodeJS.Timeout | undefined;
    const hang = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (ready === 0 && stdout.startsWith('READY\n')) {
        ready = performance.now();
        if (delayMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
      if (done === 0 && stdout.includes('\nDONE ')) done = performance.now();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(hang);
      resolve({
        killed: signal === 'SIGKILL',
        done: done > 0,
        ...(done > 0 ? { forgetMs: done - ready } : {}),
        stderr,
        code,
      });
    });
  });
}

/** Opens the store of `kind` at `location`. */
async function open(kind: Kind, location: string): Promise<SessionStore> {
  return kind === 'file' ? fileStore(location) : sqliteStore(location);
}

const ZEROS: ForgetCounts = { ...NO_COUNTS, cached: 0, keys: 0 };

describe('forgetUser cut short by SIGKILL: a re-run completes, nothing of the user is left, another user is untouched', () => {
  for (const kind of ['file', 'sqlite'] as const) {
    it(`${kind} store: ${KILLS} kills of a child forgetting a user with ${SESSIONS} sessions`, async () => {
      const started = performance.now();
      const random = seededRandom(SEED + (kind === 'file' ? 0 : 1));
      const dir = join(root, kind);
      const location = kind === 'file' ? dir : join(dir, 'store.db');
      mkdirSync(dir, { recursive: true });
      const keptUser = `user-${marker()}`;
      let keptIds: string[];
      let kept: unknown;
      {
        const store = await open(kind, location);
        keptIds = await plant(store, keptUser, marker(), 3);
        kept = await snapshotOf(store, keptUser, keptIds);
        await store.close();
      }

      /** Plants a user of its own for a round; returns their id and marker. */
      const plantRound = async (): Promise<{ user: string; mark: string }> => {
        const mark = marker();
        const user = `user-${mark}`;
        const store = await open(kind, location);
        await plant(store, user, mark, SESSIONS);
        await store.close();
        return { user, mark };
      };

      /** Sessions of `user` a store opened now lists. */
      const remaining = async (user: string): Promise<number> => {
        const store = await open(kind, location);
        try {
          return (await store.list({ userId: user, limit: 1000 })).length;
        } finally {
          await store.close();
        }
      };

      /** The re-run and every check after it. */
      const finish = async (user: string, mark: string, left: number, label: string): Promise<void> => {
        const store = await open(kind, location);
        try {
          const receipt = await store.forgetUser(user);
          // A receipt counts what that run found: the sessions the killed runs left.
          expect(receipt.removed.sessions, `${label}: sessions the re-run removed`).toBe(left);
          expect((await store.forgetUser(user)).removed, `${label}: a third run`).toEqual(ZEROS);
          expect(await store.list({ userId: user, limit: 1000 }), label).toEqual([]);
          expect(await store.values.getAll({ scope: 'user', userId: user }), label).toEqual({});
          expect(await store.values.getAll({ scope: 'session', sessionId: `${mark}-0` }), label).toEqual({});
          // While the store is open: the WAL too must hold no removed page.
          expect(filesHolding(dir, mark), `${label}: files that still hold the user (store open)`).toEqual([]);
          expect(await snapshotOf(store, keptUser, keptIds), `${label}: the other user`).toEqual(kept);
        } finally {
          await store.close();
        }
        expect(filesHolding(dir, mark), `${label}: files that still hold the user (store closed)`).toEqual([]);
      };

      // Calibration: a forget that runs to the end, timed from READY.
      const first = await plantRound();
      const calibration = await runChild(kind, location, first.user, undefined);
      expect(calibration, calibration.stderr).toMatchObject({ done: true, killed: false, code: 0 });
      const span = Math.max(5, calibration.forgetMs ?? 0);
      await finish(first.user, first.mark, 0, 'calibration');

      let kills = 0;
      let cut = 0;
      let partial = 0;
      let round = 0;
      while (kills < KILLS) {
        round += 1;
        const { user, mark } = await plantRound();
        // One kill, or two: the second child starts on what the first left.
        const children = kills + 1 < KILLS && random() < 0.3 ? 2 : 1;
        let left = SESSIONS;
        for (let child = 0; child < children; child += 1) {
          const run = await runChild(kind, location, user, Math.floor(random() * span));
          expect(run.code === 0 || run.killed, `round ${round}: the child failed: ${run.stderr.slice(0, 4000)}`).toBe(
            true,
          );
          if (run.killed) kills += 1;
          left = await remaining(user);
          if (run.killed && !run.done) cut += 1;
          if (left > 0 && left < SESSIONS) partial += 1;
        }
        await finish(user, mark, left, `round ${round} (${left} of ${SESSIONS} sessions left)`);
      }
      // Enough kills landed while the forget ran: otherwise the rounds tested nothing.
      expect(cut, 'kills that landed before the forget finished').toBeGreaterThanOrEqual(KILLS / 2);
      report.push(
        `forgetUser crash test (${kind}): ${kills} SIGKILLs in ${round} rounds, ${cut} before the forget finished, ${partial} left part of the user, forget ${span.toFixed(0)} ms, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }, 300_000);
  }
});
