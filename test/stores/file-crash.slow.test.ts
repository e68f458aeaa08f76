/**
 * Crash tests of the file store: child processes append to, save and replace the tail of
 * sessions in a loop (with a
 * tiny fold threshold, so folds run all the time) and each is killed with SIGKILL at a seeded
 * random moment (after a random number of acknowledged writes, then a random delay). After every
 * round, every write a child printed (so whose promise had resolved) is in its session exactly once, sequence numbers increase, the session loads, `list` and
 * `readMessages` agree with it — and nothing was ever mistaken for damage: a crash leaves no
 * file in lost+found and no recovery session.
 *
 * Two layouts, 13 rounds of 4 children each, two directories each: 4 × 13 × 4 = 208 kills.
 * - one writer per session (4 sessions written at once in one directory);
 * - four writers on one session (their locks are broken when they die holding them).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/stores/file/index.js';
import { runKilledChild, seededRandom, type ChildRun } from '../support/kill-harness.js';

const CHILD = fileURLToPath(new URL('../support/file-crash-child.ts', import.meta.url));
const SEED = 20_260_417;
const WRITERS = 4;
const ROUNDS = 13;
/** Small enough that most rounds fold at least once. */
const FOLD_BYTES = 6000;

/** Runs one child writer on `directory` and kills it (see `runKilledChild`). */
function runChild(
  directory: string,
  sessionId: string,
  tag: string,
  seed: number,
  delayMs: number,
  early: boolean,
  afterWrites: number,
): Promise<ChildRun> {
  return runKilledChild(
    CHILD,
    [directory, sessionId, tag, String(seed), String(FOLD_BYTES)],
    delayMs,
    early,
    afterWrites,
  );
}

let root: string;
let kills = 0;
let acknowledgedTotal = 0;
let tailReplaces = 0;
let started = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-crash-'));
  started = Date.now();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  // The figures the crash suite is measured by, for the report.
  console.info(
    `file crash test: ${kills} SIGKILLs, ${acknowledgedTotal} acknowledged messages checked (${tailReplaces} tail replaces), ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
});

/** Checks every session of `directory` against what the children acknowledged. */
async function verify(
  directory: string,
  acknowledged: ReadonlyMap<string, ReadonlySet<string>>,
  removed: ReadonlySet<string>,
  round: number,
): Promise<void> {
  const store = fileStore(directory);
  try {
    const rows = await store.list({ limit: 1000 });
    for (const [sessionId, expected] of acknowledged) {
      const session = await store.get(sessionId);
      if (session === undefined) {
        // Every child died before the session was created: then none can have acknowledged a write.
        expect(expected.size, `${sessionId} is missing after round ${round}`).toBe(0);
        continue;
      }
      expect(session.metadata.recoveredFrom, 'a crash is never taken for damage').toBeUndefined();
      const ids = session.messages.map((message) => message.id);
      expect(new Set(ids).size, 'no message is stored twice').toBe(ids.length);
      const stored = new Set(ids);
      const lost = [...expected].filter((id) => !stored.has(id));
      expect(lost, `acknowledged but lost in ${sessionId} after round ${round}`).toEqual([]);
      // An acknowledged tail replace stays done: what it removed never comes back.
      const back = ids.filter((id) => removed.has(id));
      expect(back, `removed by an acknowledged tail replace but back in ${sessionId} after round ${round}`).toEqual([]);
      const seqs = session.messages.map((message) => message.seq ?? 0);
      expect(seqs.every((seq, index) => index === 0 || seq > (seqs[index - 1] as number))).toBe(true);
      const summary = rows.find((row) => row.id === sessionId);
      expect(summary?.messageCount).toBe(ids.length);
      expect(summary?.version).toBe(session.version);
      const tail = await store.readMessages(sessionId, { limit: 5 });
      expect(tail.map((message) => message.id)).toEqual(ids.slice(-5));
    }
  } finally {
    await store.close();
  }
  expect(existsSync(join(directory, 'lost+found')), 'nothing was kept aside as damaged').toBe(false);
}

async function crashRounds(
  directory: string,
  seed: number,
  sessionFor: (writer: number) => string,
  tagPrefix: string,
): Promise<void> {
  const random = seededRandom(seed);
  const acknowledged = new Map<string, Set<string>>();
  const removed = new Set<string>();
  for (let round = 0; round < ROUNDS; round += 1) {
    const early = round === 0;
    const runs = await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) =>
        runChild(
          directory,
          sessionFor(writer),
          `${tagPrefix}r${round}w${writer}`,
          Math.floor(random() * 2 ** 31),
          early ? Math.floor(random() * 1200) : Math.floor(random() * 60),
          early,
          early ? 0 : Math.floor(random() * 40),
        ),
      ),
    );
    runs.forEach((run, writer) => {
      expect(run.errors, run.stderr).toEqual([]);
      // Killed by us, not ended by an error of its own.
      expect(
        { signal: run.signal, code: run.code },
        `child ended by itself; stderr: ${run.stderr.slice(0, 4000)}`,
      ).toEqual({ signal: 'SIGKILL', code: null });
      kills += 1;
      const sessionId = sessionFor(writer);
      const expected = acknowledged.get(sessionId) ?? new Set<string>();
      acknowledged.set(sessionId, expected);
      for (const id of run.acknowledged) expected.add(id);
      for (const id of run.removed) removed.add(id);
      tailReplaces += run.removed.length;
    });
    await verify(directory, acknowledged, removed, round);
  }
  for (const ids of acknowledged.values()) acknowledgedTotal += ids.size;
  // Tail replaces ran (and were checked): some of what they removed is named.
  expect(removed.size).toBeGreaterThan(0);
  // Folds ran: the session directories hold a backup beside the snapshot.
  const folded = readdirSync(join(directory, 'sessions')).filter((name) =>
    existsSync(join(directory, 'sessions', name, 'snapshot.bak')),
  );
  expect(folded.length).toBeGreaterThan(0);
}

describe('file store: SIGKILL at random moments loses no acknowledged write', () => {
  for (const copy of [1, 2]) {
    it(`directory ${copy}: ${ROUNDS} rounds of ${WRITERS} sessions with one writer each, every writer killed`, async () => {
      const directory = join(root, `single-${copy}`);
      await crashRounds(directory, SEED + copy, (writer) => `solo-${writer}`, `s${copy}`);
    }, 300_000);
  }
  for (const copy of [1, 2]) {
    it(`directory ${copy}: ${ROUNDS} rounds of ${WRITERS} concurrent writers on one session, every writer killed`, async () => {
      const directory = join(root, `shared-${copy}`);
      await crashRounds(directory, SEED + 100 + copy, () => 'shared', `m${copy}`);
    }, 300_000);
  }
});
