/**
 * The file store's native tail replace: one `cut` journal record (schema 3) instead of a rewrite.
 * Cuts reaching into the snapshot's records, folds that take cuts in (and cuts made while a fold
 * is under way), a second handle that follows the journal as another process does, and damage:
 * a cut record torn by a crash or with a bad checksum goes through the journal repair path, the
 * loss is told, and no version or seq goes back.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { fileStore, type DamageReport } from '../../src/stores/file/index.js';
import type { SessionStore } from '../../src/store/session-store-types.js';

const ID = 's';

let root: string;
let count = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-tail-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function directory(): string {
  count += 1;
  return join(root, `case-${count}`);
}

function tailOf(store: SessionStore) {
  const replaceTail = store.replaceTail?.bind(store);
  if (replaceTail === undefined) throw new Error('the file store has no replaceTail');
  return replaceTail;
}

const ids = (messages: readonly Message[]) => messages.map((message) => message.id);
const answer = (id: string, text = `answer ${id}`) => Message.assistant(text, { id });

/** The session's journal lines, each parsed (checksum prefix dropped). */
function journal(dir: string): Array<Record<string, unknown>> {
  const folder = join(dir, 'sessions', ID);
  const files = readdirSync(folder).filter((name) => name.startsWith('journal.'));
  const last = files.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).at(-1) as string;
  return readFileSync(join(folder, last), 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line.slice(9)) as Record<string, unknown>);
}

function journalFile(dir: string): string {
  const folder = join(dir, 'sessions', ID);
  const files = readdirSync(folder).filter((name) => name.startsWith('journal.'));
  return join(folder, files.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).at(-1) as string);
}

/** A session of `n` messages saved whole (so they sit in the snapshot), m1…mn. */
async function saved(dir: string, n: number): Promise<Session> {
  const store = fileStore(dir);
  try {
    const messages = Array.from({ length: n }, (_, index) => answer(`m${index + 1}`));
    return await store.save(Session.create({ id: ID, userId: 'u' }).append(...messages));
  } finally {
    await store.close();
  }
}

describe('file store: replaceTail is one journal record', () => {
  it('a cut into the snapshot writes one cut line (schema 3), nothing else; every read and a fresh handle agree', async () => {
    const dir = directory();
    const session = await saved(dir, 8);
    const store = fileStore(dir);
    const before = readdirSync(join(dir, 'sessions', ID)).sort();
    const result = await tailOf(store)(ID, {
      afterSeq: 5,
      messages: [answer('n1'), answer('m7', 'm7 again, edited')],
      expectedVersion: session.version,
    });
    expect(result).toMatchObject({ version: session.version + 1, removed: 3 });
    expect(ids(result.messages)).toEqual(['n1', 'm7']);
    // No rewrite: the same files, the journal one line longer, and that line a cut.
    expect(readdirSync(join(dir, 'sessions', ID)).sort()).toEqual(before);
    const lines = journal(dir);
    expect(lines.map((line) => line.k)).toEqual(['begin', 'cut']);
    expect(lines[0]?.s).toBe(2);
    expect(lines[1]).toMatchObject({ s: 3, k: 'cut', from: session.version, after: 5 });
    const expected = ['m1', 'm2', 'm3', 'm4', 'm5', 'n1', 'm7'];
    expect(ids((await store.load(ID)).messages)).toEqual(expected);
    expect(ids(await store.readMessages(ID, { limit: 3 }))).toEqual(['m5', 'n1', 'm7']);
    expect(ids(await store.readMessages(ID, { afterSeq: 4, beforeSeq: 10 }))).toEqual(['m5', 'n1']);
    expect(await store.summary(ID)).toMatchObject({ messageCount: 7, version: session.version + 1 });
    // The reused id m7 is the new message, with a seq above every earlier one.
    const reloaded = await store.load(ID);
    expect(reloaded.messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 9, 10]);
    await store.close();
    const fresh = fileStore(dir);
    expect(ids((await fresh.load(ID)).messages)).toEqual(expected);
    expect(ids(await fresh.readMessages(ID, { limit: 2 }))).toEqual(['n1', 'm7']);
    expect((await fresh.list())[0]).toMatchObject({ id: ID, messageCount: 7, version: session.version + 1 });
    // Appends after the cut: a duplicate of a kept id is skipped, a removed id is new again.
    const appended = await fresh.append(ID, [answer('m2'), answer('m8')]);
    expect(appended.duplicates).toEqual(['m2']);
    expect(ids(appended.appended)).toEqual(['m8']);
    await fresh.close();
  });

  it('a new message reusing an id the kept part holds is INVALID_ARGUMENT and writes nothing', async () => {
    const dir = directory();
    const session = await saved(dir, 4);
    const store = fileStore(dir);
    const size = statSync(journalFile(dir)).size;
    await expect(
      tailOf(store)(ID, { afterSeq: 2, messages: [answer('m1')], expectedVersion: session.version }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(statSync(journalFile(dir)).size).toBe(size);
    expect(ids((await store.load(ID)).messages)).toEqual(['m1', 'm2', 'm3', 'm4']);
    await store.close();
  });

  it('a second handle (another process) follows cuts from the journal, also cuts into the snapshot, and writes after them', async () => {
    const dir = directory();
    const session = await saved(dir, 6);
    const writer = fileStore(dir);
    const reader = fileStore(dir);
    expect(ids(await reader.readMessages(ID, { limit: 2 }))).toEqual(['m5', 'm6']);
    await writer.append(ID, [answer('a1')]);
    expect(ids(await reader.readMessages(ID, { limit: 2 }))).toEqual(['m6', 'a1']);
    // A pop of the journal's own record, then a cut into the snapshot.
    const popped = await tailOf(writer)(ID, { afterSeq: 6, messages: [], expectedVersion: session.version + 1 });
    expect(ids(await reader.readMessages(ID, { limit: 2 }))).toEqual(['m5', 'm6']);
    const cut = await tailOf(writer)(ID, { afterSeq: 3, messages: [answer('b1')], expectedVersion: popped.version });
    expect(ids(await reader.readMessages(ID, { limit: 3 }))).toEqual(['m2', 'm3', 'b1']);
    expect(ids((await reader.load(ID)).messages)).toEqual(['m1', 'm2', 'm3', 'b1']);
    // The reader writes next: its ids know m4…m6 are gone (appending m4 again adds it).
    const again = await reader.append(ID, [answer('m4'), answer('m1')], { expectedVersion: cut.version });
    expect(ids(again.appended)).toEqual(['m4']);
    expect(again.duplicates).toEqual(['m1']);
    const third = await tailOf(reader)(ID, { afterSeq: 0, messages: [answer('c1')], expectedVersion: again.version });
    expect(third.removed).toBe(5);
    expect(ids((await writer.load(ID)).messages)).toEqual(['c1']);
    await writer.close();
    await reader.close();
  });

  it('folds take cuts in, also cuts made while a fold is under way; the result matches a model', async () => {
    const dir = directory();
    // Tiny folds: nearly every write starts one in the background, so cuts race them.
    const store = fileStore(dir, { foldBytes: 400 });
    const other = fileStore(dir, { foldBytes: 400 });
    let model: string[] = [];
    let session = await store.save(Session.create({ id: ID }).append(answer('m0')));
    model = ['m0'];
    let version = session.version;
    for (let step = 0; step < 60; step += 1) {
      const handle = step % 3 === 0 ? other : store;
      if (step % 4 === 3 && model.length > 0) {
        const keep = Math.max(0, model.length - 1 - (step % 3));
        const rows = await handle.readMessages(ID, {});
        const afterSeq = keep === 0 ? 0 : (rows[keep - 1]?.seq as number);
        const fresh = [answer(`t${step}`, `tail ${step} `.repeat(10))];
        const result = await tailOf(handle)(ID, { afterSeq, messages: fresh, expectedVersion: version });
        expect(result.removed).toBe(model.length - keep);
        model = [...model.slice(0, keep), `t${step}`];
        version = result.version;
      } else {
        const result = await handle.append(ID, [answer(`a${step}`, `append ${step} `.repeat(10))]);
        model.push(`a${step}`);
        version = result.version;
      }
      expect(ids(await handle.readMessages(ID, { limit: 3 }))).toEqual(model.slice(-3));
    }
    session = await other.load(ID);
    expect(ids(session.messages)).toEqual(model);
    await store.close();
    await other.close();
    // A snapshot was written since (folds ran) and a fresh handle reads the same.
    expect(readdirSync(join(dir, 'sessions', ID))).toContain('snapshot.bak');
    const fresh = fileStore(dir);
    expect(ids((await fresh.load(ID)).messages)).toEqual(model);
    expect((await fresh.summary(ID))?.messageCount).toBe(model.length);
    await fresh.close();
  });
});

describe('file store: a damaged cut record', () => {
  /** A saved session of 6, then two acknowledged cuts; the journal is [begin, cut, cut]. */
  async function twoCuts(dir: string): Promise<{ version: number; lastSeq: number }> {
    const session = await saved(dir, 6);
    const store = fileStore(dir);
    const first = await tailOf(store)(ID, { afterSeq: 4, messages: [answer('x1')], expectedVersion: session.version });
    const second = await tailOf(store)(ID, { afterSeq: 2, messages: [answer('y1')], expectedVersion: first.version });
    await store.close();
    expect(journal(dir).map((line) => line.k)).toEqual(['begin', 'cut', 'cut']);
    return { version: second.version, lastSeq: 8 };
  }

  async function load(dir: string): Promise<{ session: Session; reports: DamageReport[] }> {
    const reports: DamageReport[] = [];
    const store = fileStore(dir, { onDamage: (report) => reports.push(report) });
    const session = await store.load(ID);
    await store.close();
    return { session, reports };
  }

  it('an acknowledged cut torn in the middle (a crash cannot do that: the disk lost it) is a loss: told, and versions and seqs go above the mark', async () => {
    const dir = directory();
    const reached = await twoCuts(dir);
    const file = journalFile(dir);
    const text = readFileSync(file, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    truncateSync(file, lastStart + Math.floor((text.length - lastStart) / 2));
    const { session, reports } = await load(dir);
    // The first cut is kept; the second (y1) is lost and the session says so.
    expect(ids(session.messages)).toEqual(['m1', 'm2', 'm3', 'm4', 'x1', `recovery-v${reached.version + 1}`]);
    expect(session.version).toBeGreaterThan(reached.version);
    expect(session.metadata.recovery).toEqual([
      expect.objectContaining({
        lost: { fromSeq: 8, toSeq: reached.lastSeq, fromVersion: reached.version, toVersion: reached.version },
      }),
    ]);
    expect(reports.filter((report) => report.notice !== undefined)).toHaveLength(1);
    const store = fileStore(dir);
    const next = await store.append(ID, [answer('z1')]);
    expect(next.appended[0]?.seq).toBeGreaterThan(reached.lastSeq + 1);
    await expect(
      tailOf(store)(ID, { afterSeq: 1, messages: [], expectedVersion: reached.version }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await store.close();
  });

  it('a cut never acknowledged (the mark below it) and torn by a crash is dropped quietly', async () => {
    const dir = directory();
    const session = await saved(dir, 4);
    const store = fileStore(dir);
    await tailOf(store)(ID, { afterSeq: 2, messages: [answer('x1')], expectedVersion: session.version });
    await store.close();
    // As a crash during the cut's write leaves it: the mark still says the saved session.
    const mark = join(dir, 'sessions', ID, 'watermark');
    const { watermarkBytes } = await import('../../src/stores/file/watermark.js');
    writeFileSync(mark, watermarkBytes({ version: session.version, lastSeq: 4 }));
    const file = journalFile(dir);
    truncateSync(file, statSync(file).size - 20);
    const { session: loaded, reports } = await load(dir);
    expect(ids(loaded.messages)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(loaded.version).toBe(session.version);
    expect(reports).toEqual([]);
  });

  it('a cut with a bad checksum before a valid record stops the replay there; the version goes above what the later record claims', async () => {
    const dir = directory();
    const reached = await twoCuts(dir);
    const file = journalFile(dir);
    const all = readFileSync(file, 'utf8').split('\n').slice(0, -1);
    all[1] = (all[1] as string).replace('answer x1', 'answer x2');
    writeFileSync(file, `${all.join('\n')}\n`);
    const { session, reports } = await load(dir);
    expect(reports[0]).toMatchObject({ kind: 'journal-damaged' });
    expect(reports[0]?.reason).toMatch(/checksum mismatch/);
    // Nothing after the damage is replayed: the saved session, then the notice.
    expect(ids(session.messages).slice(0, 6)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(session.version).toBeGreaterThan(reached.version);
    expect((session.messages.at(-1)?.seq ?? 0) > reached.lastSeq).toBe(true);
    expect(readdirSync(join(dir, 'lost+found')).length).toBe(1);
  });
});

describe('file store: what a tail replace and an erasing save leave in the files', () => {
  /** The files under `dir` whose bytes hold `needle`, relative to `dir`. */
  function holding(dir: string, needle: string): string[] {
    const found: string[] = [];
    const walk = (at: string): void => {
      for (const name of readdirSync(at)) {
        const full = join(at, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (readFileSync(full).includes(needle)) found.push(full.slice(dir.length + 1));
      }
    };
    walk(dir);
    return found;
  }

  it('a save with erase: true leaves no copy of what it dropped (no backup, no older journal); one without keeps the backup', async () => {
    for (const erase of [true, false]) {
      const dir = directory();
      const store = fileStore(dir);
      const first = await store.save(
        Session.create({ id: ID }).append(answer('a1'), answer('a2', 'the forgotten fact: blue door')),
      );
      await store.append(ID, [answer('a3', 'an appended fact: green gate')]);
      const loaded = await store.load(ID);
      const kept = Session.fromJSON({ ...loaded.toJSON(), messages: loaded.toJSON().messages.slice(0, 1) });
      await store.save(kept, { expectedVersion: first.version + 1, ...(erase ? { erase } : {}) });
      expect(ids((await store.load(ID)).messages)).toEqual(['a1']);
      await store.close();
      if (erase) {
        expect(holding(dir, 'blue door')).toEqual([]);
        expect(holding(dir, 'green gate')).toEqual([]);
      } else expect(holding(dir, 'blue door')).toEqual([`sessions/${ID}/snapshot.bak`]);
      // Either way the session reads back whole from a fresh handle.
      const fresh = fileStore(dir);
      expect(ids((await fresh.load(ID)).messages)).toEqual(['a1']);
      await fresh.close();
    }
  });

  it('a tail replace is not an erasure: what it dropped stays in the snapshot or journal until folds rewrite it away', async () => {
    const dir = directory();
    const store = fileStore(dir);
    const session = await store.save(Session.create({ id: ID }).append(answer('a1'), answer('a2', 'regenerated away')));
    await tailOf(store)(ID, { afterSeq: 1, messages: [answer('a3')], expectedVersion: session.version });
    expect(holding(dir, 'regenerated away')).toEqual([`sessions/${ID}/snapshot`]);
    await store.close();
  });
});
