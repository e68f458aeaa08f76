/**
 * Crash and corruption tests of the SQLite store.
 *
 * Crash: several child processes append to and save one session at once, and each is killed with
 * SIGKILL at a seeded random moment (after a random number of acknowledged writes, then a random
 * delay). After every round, every write a child printed (so whose promise had resolved) is in
 * the session exactly once, sequence numbers still increase, and the index agrees with the messages. The first round of each database kills children as early as
 * during opening and migration.
 *
 * Corruption: a damaged database file is a `DataError` `CORRUPT` that names the store and the
 * file, never a raw SQLite error.
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError, DataError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { runKilledChild, seededRandom, type ChildRun } from '../support/kill-harness.js';

const CHILD = fileURLToPath(new URL('../support/sqlite-crash-child.ts', import.meta.url));
const SEED = 20_260_322;
/** Children per round, all writing to the same session. */
const WRITERS = 4;
/** Rounds per database; four databases give 4 × 13 × 4 = 208 kills. */
const ROUNDS = 13;
const DATABASES = 4;
/** Sessions per database: a round writes to one of them, so sessions grow across rounds. */
const SESSIONS = 3;

/** Runs one child writer on `file` and kills it (see `runKilledChild`). */
function runChild(
  file: string,
  sessionId: string,
  tag: string,
  seed: number,
  delayMs: number,
  early: boolean,
  afterWrites: number,
): Promise<ChildRun> {
  return runKilledChild(CHILD, [file, sessionId, tag, String(seed)], delayMs, early, afterWrites);
}

let directory: string;
let kills = 0;
let acknowledgedTotal = 0;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'chatstate-sqlite-crash-'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  // The figures the crash suite is measured by, for the report.
  console.info(`sqlite crash test: ${kills} SIGKILLs, ${acknowledgedTotal} acknowledged messages checked`);
});

describe('sqlite store: SIGKILL at random moments loses no acknowledged write', () => {
  for (let database = 0; database < DATABASES; database += 1) {
    it(`database ${database + 1} of ${DATABASES}: ${ROUNDS} rounds of ${WRITERS} concurrent writers, each killed`, async () => {
      const random = seededRandom(SEED + database);
      const file = join(directory, `crash-${database}.db`);
      const acknowledged = new Map<string, Set<string>>();
      for (let round = 0; round < ROUNDS; round += 1) {
        const sessionId = `crash-${round % SESSIONS}`;
        // The first round starts on a missing file: kills may land while it is created and migrated.
        const early = round === 0;
        const runs = await Promise.all(
          Array.from({ length: WRITERS }, (_, writer) =>
            runChild(
              file,
              sessionId,
              `d${database}r${round}w${writer}`,
              Math.floor(random() * 2 ** 31),
              early ? Math.floor(random() * 1500) : Math.floor(random() * 80),
              early,
              early ? 0 : Math.floor(random() * 40),
            ),
          ),
        );
        const expected = acknowledged.get(sessionId) ?? new Set<string>();
        acknowledged.set(sessionId, expected);
        for (const run of runs) {
          expect(run.errors, run.stderr).toEqual([]);
          // Killed by us, not ended by an error of its own.
          expect(
            { signal: run.signal, code: run.code },
            `child ended by itself; stderr: ${run.stderr.slice(0, 4000)}`,
          ).toEqual({ signal: 'SIGKILL', code: null });
          kills += 1;
          for (const id of run.acknowledged) expected.add(id);
        }

        const store = await sqliteStore(file);
        try {
          const session = await store.get(sessionId);
          if (session === undefined) {
            // Every child died before the session was created: then none can have acknowledged a write.
            expect(expected.size).toBe(0);
            continue;
          }
          const ids = session.messages.map((message) => message.id);
          expect(new Set(ids).size, 'no message is stored twice').toBe(ids.length);
          const stored = new Set(ids);
          const lost = [...expected].filter((id) => !stored.has(id));
          expect(lost, `acknowledged but lost after round ${round}`).toEqual([]);
          const seqs = session.messages.map((message) => message.seq ?? 0);
          expect(seqs.every((seq, index) => index === 0 || seq > (seqs[index - 1] as number))).toBe(true);
          const summary = (await store.list({ userId: 'crash', limit: 1000 })).find((row) => row.id === sessionId);
          expect(summary?.messageCount).toBe(ids.length);
          expect(summary?.version).toBe(session.version);
          const tail = await store.readMessages(sessionId, { limit: 5 });
          expect(tail.map((message) => message.id)).toEqual(ids.slice(-5));
        } finally {
          await store.close();
        }
      }
      for (const ids of acknowledged.values()) acknowledgedTotal += ids.size;
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    }, 300_000);
  }
});

/** Writes a database with a few sessions and closes it (which checkpoints the WAL into the file). */
async function writeDatabase(file: string): Promise<void> {
  const store = await sqliteStore(file);
  for (let index = 0; index < 6; index += 1) {
    const messages = Array.from({ length: 200 }, (_, seq) =>
      Message.user(`session ${index} message ${seq} `.repeat(8)),
    );
    await store.save(Session.create({ id: `s${index}` }).append(...messages));
  }
  await store.close();
}

/** Runs `work` and returns what it threw, checking it is a chatstate error and never a raw SQLite one. */
async function failure(work: () => Promise<unknown>): Promise<ChatstateError | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    expect(ChatstateError.isInstance(error), `a raw error escaped: ${String(error)}`).toBe(true);
    return error as ChatstateError;
  }
}

function expectCorrupt(error: ChatstateError | undefined, file: string): void {
  expect(error).toBeInstanceOf(DataError);
  expect(error?.code).toBe('CORRUPT');
  expect(error?.message).toMatch(/^sqlite: /);
  expect(error?.message).toContain(file);
}

describe('sqlite store: a damaged database file is CORRUPT, naming the store', () => {
  it('a file of garbage', async () => {
    const file = join(directory, 'garbage.db');
    writeFileSync(file, Buffer.from(Array.from({ length: 16_384 }, (_, index) => (index * 131 + 7) % 251)));
    expectCorrupt(await failure(() => sqliteStore(file)), file);
  });

  it('a file of zeros', async () => {
    const file = join(directory, 'zeros.db');
    writeFileSync(file, Buffer.alloc(16_384));
    expectCorrupt(await failure(() => sqliteStore(file)), file);
  });

  it('a file whose header is torn', async () => {
    const file = join(directory, 'torn-header.db');
    await writeDatabase(file);
    truncateSync(file, 60);
    expectCorrupt(await failure(() => sqliteStore(file)), file);
  });

  it('a file cut in half', async () => {
    const file = join(directory, 'half.db');
    await writeDatabase(file);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    expectCorrupt(await failure(() => sqliteStore(file)), file);
  });

  it('pages overwritten in the middle: reading them is CORRUPT, the rest still works', async () => {
    const file = join(directory, 'middle.db');
    await writeDatabase(file);
    const page = 4096;
    const handle = openSync(file, 'r+');
    const junk = Buffer.from(Array.from({ length: 8 * page }, (_, index) => (index * 131 + 7) % 251));
    writeSync(handle, junk, 0, junk.length, Math.floor(statSync(file).size / 2 / page) * page);
    closeSync(handle);
    const store = await sqliteStore(file);
    const loads = [];
    for (let index = 0; index < 6; index += 1) loads.push(await failure(() => store.load(`s${index}`)));
    expect(await failure(() => store.list())).toBeUndefined();
    await store.close();
    const damaged = loads.filter((error) => error !== undefined);
    expect(damaged.length).toBeGreaterThan(0);
    expect(damaged.length).toBeLessThan(6);
    for (const error of damaged) expectCorrupt(error, file);
  });

  it('garbage in the WAL is ignored: the committed data is intact', async () => {
    const file = join(directory, 'wal-garbage.db');
    await writeDatabase(file);
    const before = readFileSync(file);
    // A log that does not start with a valid header and checksums is not replayed.
    writeFileSync(`${file}-wal`, Buffer.from(Array.from({ length: 40_000 }, (_, index) => (index * 17 + 3) % 256)));
    const store = await sqliteStore(file);
    const session = await store.load('s3');
    expect(session.messages).toHaveLength(200);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
    await store.close();
    expect(readFileSync(file).subarray(100).equals(before.subarray(100))).toBe(true);
  });
});
