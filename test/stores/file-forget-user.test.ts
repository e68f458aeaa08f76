/**
 * forgetUser on the file store reaches the files no listing shows, each produced the way the store
 * produces it: lost+found entries (a damaged journal copied aside; a session whose snapshot and
 * backup are both damaged, moved aside and replaced by a recovery session), a damaged session
 * never read since, and `.trash-*` left by a removal a crash cut short (through a `FileSystem`
 * layer that fails where the crash would have stopped it). Each case runs on two stores holding
 * the same user: one damaged, one not; after the forget no byte of the damaged store's directory
 * holds the user, and its receipt counts what the clean one's does plus exactly what was planted.
 */
import { randomBytes } from 'node:crypto';
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { ForgetReceipt, SessionStore } from '../../src/store/session-store-types.js';
import type { FileSystem } from '../../src/stores/file/file-system.js';
import { fileStore, type DamageReport } from '../../src/stores/file/index.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-forget-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A marker no other data holds. */
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

/** Files under `dir` (recursively); 0 when it is missing. */
function fileCount(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return readdirSync(dir).reduce((sum, name) => {
    const full = join(dir, name);
    return sum + (statSync(full).isDirectory() ? fileCount(full) : 1);
  }, 0);
}

/** Sessions `a`…`d` of the user: saved, folded once (a backup and two journals), appended to. */
async function plant(directory: string, mark: string): Promise<{ user: string; ids: string[] }> {
  const user = `user-${mark}`;
  const ids = ['a', 'b', 'c', 'd'].map((name) => `${mark}-${name}`);
  // A tiny fold threshold: the large append below folds, leaving `snapshot.bak`, `journal.1` and `journal.2`.
  const folding = fileStore(directory, { foldBytes: 1 });
  for (const id of ids) {
    await folding.save(
      Session.create({
        id,
        userId: user,
        messages: [
          Message.user(`my secret is ${mark}`, { id: 'm0' }),
          Message.assistant(`noted ${mark}`, { id: 'm1' }),
        ],
      }),
    );
    await folding.append(id, [Message.user(`${mark} `.repeat(200), { id: 'm2' })]);
  }
  await folding.close();
  const plain = fileStore(directory);
  for (const id of ids) {
    for (let index = 3; index < 6; index += 1)
      await plain.append(id, [Message.assistant(`later ${mark} ${index}`, { id: `m${index}` })]);
  }
  await plain.values.set({ scope: 'user', userId: user }, { likes: `${mark} tea` });
  await plain.values.set({ scope: 'session', sessionId: ids[0] as string }, { side: mark });
  await plain.close();
  return { user, ids };
}

/** A fresh pair of directories holding the same user (same ids and text): `clean` and `damaged`. */
async function twins(): Promise<{ clean: string; damaged: string; mark: string; user: string; ids: string[] }> {
  const mark = marker();
  const clean = join(root, `${mark}-clean`);
  const damaged = join(root, `${mark}-damaged`);
  await plant(clean, mark);
  const { user, ids } = await plant(damaged, mark);
  return { clean, damaged, mark, user, ids };
}

async function forget(directory: string, user: string): Promise<ForgetReceipt> {
  const store = fileStore(directory);
  try {
    return await store.forgetUser(user);
  } finally {
    await store.close();
  }
}

/** After the forget: no byte of `directory` holds the user, nothing is left in lost+found or as trash. */
function expectNothingLeft(directory: string, mark: string): void {
  expect(filesHolding(directory, mark)).toEqual([]);
  expect(fileCount(join(directory, 'lost+found')), 'files left in lost+found').toBe(0);
  expect(
    readdirSync(join(directory, 'sessions')).filter((name) => name.startsWith('.trash-')),
    'trash left',
  ).toEqual([]);
}

/** Deterministic bytes that are neither JSON nor zeros. */
function garbage(length: number): Buffer {
  return Buffer.from(Array.from({ length }, (_, index) => (index * 131 + 7) % 251));
}

/** Opens a store that reports damage into `reports`. */
function reporting(directory: string, reports: DamageReport[]): SessionStore {
  return fileStore(directory, { onDamage: (report) => void reports.push(report) });
}

describe('forgetUser on the file store: the files no listing shows', () => {
  it("removes the lost+found copy of a damaged journal of one of the user's sessions, and counts its file", async () => {
    const { clean, damaged, mark, user, ids } = await twins();
    const journal = join(damaged, 'sessions', ids[1] as string, 'journal.2');
    // A record in the middle of the journal damaged: the store copies the journal aside and goes on.
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[2] = (lines[2] as string).replace(/.$/, '#');
    writeFileSync(journal, lines.join('\n'));
    const reports: DamageReport[] = [];
    const store = reporting(damaged, reports);
    const loaded = await store.load(ids[1] as string);
    expect(loaded.userId).toBe(user);
    await store.close();
    expect(reports.map((report) => report.kind)).toContain('journal-damaged');
    const aside = fileCount(join(damaged, 'lost+found'));
    expect(aside, 'the journal was copied aside').toBeGreaterThan(0);
    expect(filesHolding(join(damaged, 'lost+found'), mark).length).toBeGreaterThan(0);
    const sessionFiles = (dir: string) => fileCount(join(dir, 'sessions', ids[1] as string));
    const extraSessionFiles = sessionFiles(damaged) - sessionFiles(clean);

    const expected = await forget(clean, user);
    const receipt = await forget(damaged, user);
    expectNothingLeft(damaged, mark);
    // The replay stopped at the damaged record: the messages after it were lost then, not now.
    expect(receipt.removed).toMatchObject({
      ...expected.removed,
      messages: expected.removed.messages - 6 + loaded.messages.length,
      files: expected.removed.files + aside + extraSessionFiles,
    });
  });

  // Snapshot and backup both unreadable: nothing left in the session's files names the owner, so
  // the recovery marker keeps the owner the session index last knew (written by any listing), and
  // the recovery session has it. (A store whose index never saw the session still cannot tell.)
  it('removes a recovery session that took the place of a lost session of the user, with the files kept aside', async () => {
    const { clean, damaged, mark, user, ids } = await twins();
    const lister = fileStore(damaged);
    expect((await lister.list({ userId: user })).length).toBe(ids.length);
    await lister.close();
    const dir = join(damaged, 'sessions', ids[2] as string);
    // Snapshot and backup both unreadable: the store moves every file aside and a recovery session takes the id.
    for (const name of ['snapshot', 'snapshot.bak'])
      writeFileSync(join(dir, name), garbage(statSync(join(dir, name)).size));
    const reports: DamageReport[] = [];
    const store = reporting(damaged, reports);
    const recovered = await store.get(ids[2] as string);
    expect(recovered?.metadata.recoveredFrom).toBe(ids[2]);
    await store.close();
    expect(reports.map((report) => report.kind)).toContain('unreadable');
    const aside = fileCount(join(damaged, 'lost+found'));
    expect(filesHolding(join(damaged, 'lost+found'), mark).length).toBeGreaterThan(0);
    const left = fileCount(dir);
    const lostFiles = fileCount(join(clean, 'sessions', ids[2] as string));

    const expected = await forget(clean, user);
    const receipt = await forget(damaged, user);
    expectNothingLeft(damaged, mark);
    const after = fileStore(damaged);
    expect(await after.get(ids[2] as string), 'the recovery session is gone').toBeUndefined();
    await after.close();
    // The lost session's messages are not known any more (its files were unreadable): its files are counted instead.
    expect(receipt.removed.sessions).toBe(expected.removed.sessions);
    // Its six messages are lost; the recovery session's notice is the one counted in their place.
    expect(receipt.removed.messages).toBe(expected.removed.messages - 6 + 1);
    expect(receipt.removed.files).toBe(expected.removed.files - lostFiles + aside + left);
  });

  it('removes a damaged session never read since, whose files name the user', async () => {
    const { clean, damaged, mark, user, ids } = await twins();
    const dir = join(damaged, 'sessions', ids[3] as string);
    // The first line's checksum broken: its head (which names the owner) no longer reads, but its bytes are there.
    for (const name of ['snapshot', 'snapshot.bak']) {
      const bytes = readFileSync(join(dir, name));
      bytes.write('00000000', 0, 'latin1');
      writeFileSync(join(dir, name), bytes);
    }
    expect(filesHolding(dir, `"userId":"${user}"`).length).toBeGreaterThan(0);

    const expected = await forget(clean, user);
    const receipt = await forget(damaged, user);
    expectNothingLeft(damaged, mark);
    // Its head did not read: the session is counted, its messages cannot be.
    expect(receipt.removed).toMatchObject({ ...expected.removed, messages: expected.removed.messages - 6 });
  });

  it('removes `.trash-*` a removal cut short by a crash left, and counts each', async () => {
    const { clean, damaged, mark, user, ids } = await twins();
    // The removal renames the session's directory to `.trash-*`, then removes that tree: the crash comes between.
    const crashing: FileSystem = Object.assign(Object.create(fs) as FileSystem, {
      rm(
        path: string,
        options: { recursive: true; force: true; maxRetries: number },
        done: (error: Error | null) => void,
      ) {
        if (path.includes('.trash-')) done(Object.assign(new Error('crashed (simulated)'), { code: 'EIO' }));
        else fs.rm(path, options, done);
      },
    });
    const store = fileStore(damaged, { fileSystem: crashing });
    // The store ignores a failed removal of its trash (it is garbage): the delete succeeds and leaves it.
    expect(await store.delete(ids[3] as string)).toBe(true);
    await store.close();
    const trash = readdirSync(join(damaged, 'sessions')).filter((name) => name.startsWith('.trash-'));
    expect(trash).toHaveLength(1);
    expect(filesHolding(join(damaged, 'sessions', trash[0] as string), mark).length).toBeGreaterThan(0);
    // The same session deleted in the clean twin, completely.
    const plain = fileStore(clean);
    expect(await plain.delete(ids[3] as string)).toBe(true);
    await plain.close();

    const expected = await forget(clean, user);
    const receipt = await forget(damaged, user);
    expectNothingLeft(damaged, mark);
    expect(receipt.removed).toMatchObject({ ...expected.removed, files: expected.removed.files + trash.length });
  });
});
