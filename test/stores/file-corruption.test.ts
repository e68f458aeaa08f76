/**
 * Corruption tests of the file store: truncated, zeroed, garbage and missing snapshot, backup and
 * journal files, alone and combined.
 *
 * The layout every test damages (built the same way each time, checked before use):
 * - `snapshot.bak` (journal 1): the saved session, m0…m5;
 * - `journal.1`: m6, then a seal (the fold moved on to journal 2);
 * - `snapshot` (journal 2): m0…m6;
 * - `journal.2`: m7…m10, one record each.
 *
 * Policy under test: the snapshot falls back to the backup and its journals (also when the
 * snapshot is missing); with neither readable a recovery session takes the id and the files are
 * kept aside; a torn journal tail (no newline, or no valid record after it) is dropped; a damaged
 * record with valid records after it stops the replay there — what follows is never replayed,
 * the journal is copied aside, and version and sequence numbers continue above everything the
 * damaged journal claimed.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { fileStore, type DamageReport } from '../../src/stores/file/index.js';
import { FILE_SCHEMA, frameLine } from '../../src/stores/file/frame.js';
import { beginLine } from '../../src/stores/file/journal.js';
import { watermarkBytes } from '../../src/stores/file/watermark.js';
import { decodeSnapshot } from '../../src/stores/file/snapshot-format.js';

const ID = 's';
const ALL = Array.from({ length: 11 }, (_, index) => `m${index}`);

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-corruption-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

interface Layout {
  readonly directory: string;
  readonly snapshot: string;
  readonly backup: string;
  readonly previous: string;
  readonly journal: string;
}

let count = 0;
async function prepare(): Promise<Layout> {
  count += 1;
  const directory = join(root, `case-${count}`);
  // A tiny threshold: the one large append below triggers exactly one fold.
  const folding = fileStore(directory, { foldBytes: 1 });
  const first = [Message.system('You are terse.', { id: 'm0' }), Message.user('the first question', { id: 'm1' })];
  const more = Array.from({ length: 4 }, (_, index) =>
    Message.assistant(`answer ${index + 2}`, { id: `m${index + 2}` }),
  );
  await folding.save(Session.create({ id: ID, userId: 'u' }).append(...first, ...more));
  await folding.append(ID, [Message.user('x'.repeat(3000), { id: 'm6' })]);
  await folding.close();
  const plain = fileStore(directory);
  for (let index = 7; index <= 10; index += 1)
    await plain.append(ID, [Message.assistant(`later answer ${index}`, { id: `m${index}` })]);
  await plain.close();
  const dir = join(directory, 'sessions', ID);
  const layout = {
    directory,
    snapshot: join(dir, 'snapshot'),
    backup: join(dir, 'snapshot.bak'),
    previous: join(dir, 'journal.1'),
    journal: join(dir, 'journal.2'),
  };
  // The layout the tests rely on.
  expect(readdirSync(dir).sort()).toEqual(['journal.1', 'journal.2', 'snapshot', 'snapshot.bak', 'watermark']);
  expect(decodeSnapshot(readFileSync(layout.backup)).messages.map((record) => record.id)).toEqual(ALL.slice(0, 6));
  expect(decodeSnapshot(readFileSync(layout.snapshot)).messages.map((record) => record.id)).toEqual(ALL.slice(0, 7));
  expect(lines(layout.journal)).toHaveLength(5);
  return layout;
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

/** Deterministic bytes that are neither JSON nor zeros. */
function garbage(length: number): Buffer {
  return Buffer.from(Array.from({ length }, (_, index) => (index * 131 + 7) % 251));
}

type Damage = 'truncated' | 'zeroed' | 'garbage' | 'missing';
const DAMAGES: readonly Damage[] = ['truncated', 'zeroed', 'garbage', 'missing'];

function damage(file: string, how: Damage | 'intact'): void {
  const size = statSync(file).size;
  switch (how) {
    case 'intact':
      return;
    case 'truncated':
      truncateSync(file, Math.floor(size / 2));
      return;
    case 'zeroed':
      writeFileSync(file, Buffer.alloc(size));
      return;
    case 'garbage':
      writeFileSync(file, garbage(size));
      return;
    case 'missing':
      unlinkSync(file);
      return;
    default:
      return how satisfies never;
  }
}

function keptAside(directory: string): string[] {
  const lostAndFound = join(directory, 'lost+found');
  if (!existsSync(lostAndFound)) return [];
  return readdirSync(lostAndFound).flatMap((folder) =>
    readdirSync(join(lostAndFound, folder)).map((file) => `lost+found/${folder}/${file}`),
  );
}

/** Writes the session's high-water mark as a crash before its next update would have left it. */
function setMark(layout: Layout, mark: { version: number; lastSeq: number }): void {
  writeFileSync(join(layout.directory, 'sessions', ID, 'watermark'), watermarkBytes(mark));
}

/** Opens the store, loads the session, and checks a second, fresh store reads the same (the repair was written). */
async function load(directory: string): Promise<{ session: Session; reports: DamageReport[] }> {
  const reports: DamageReport[] = [];
  const store = fileStore(directory, { onDamage: (report) => reports.push(report) });
  const session = await store.load(ID);
  await store.close();
  const again = fileStore(directory, {
    onDamage: (report) => reports.push({ ...report, reason: `second load: ${report.reason}` }),
  });
  const second = await again.load(ID);
  await again.close();
  expect(second.messages.map((message) => message.id)).toEqual(session.messages.map((message) => message.id));
  expect(second.version).toBe(session.version);
  return { session, reports };
}

const ids = (session: Session) => session.messages.map((message) => message.id);

describe('file store: snapshot and backup damage', () => {
  for (const backupDamage of ['intact', ...DAMAGES] as const) {
    it(`snapshot intact, backup ${backupDamage}: everything loads, the backup is not even read`, async () => {
      const layout = await prepare();
      damage(layout.backup, backupDamage);
      const { session, reports } = await load(layout.directory);
      expect(ids(session)).toEqual(ALL);
      expect(reports).toEqual([]);
      expect(keptAside(layout.directory)).toEqual([]);
    });
  }

  for (const snapshotDamage of DAMAGES) {
    it(`snapshot ${snapshotDamage}, backup intact: the backup and its journals give every message back`, async () => {
      const layout = await prepare();
      damage(layout.snapshot, snapshotDamage);
      const { session, reports } = await load(layout.directory);
      expect(ids(session)).toEqual(ALL);
      expect(session.messages.map((message) => message.seq)).toEqual(ALL.map((_, index) => index + 1));
      // Reported once (the second load finds a repaired snapshot), the damaged snapshot kept aside.
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ sessionId: ID, kind: 'restored-from-backup' });
      const aside = keptAside(layout.directory);
      expect(aside).toEqual(snapshotDamage === 'missing' ? [] : [expect.stringMatching(/\/snapshot$/)]);
      expect(reports[0]?.keptAside).toEqual(aside);
      // The snapshot was written back: appends continue on a healthy session.
      const store = fileStore(layout.directory);
      const result = await store.append(ID, [Message.user('after the repair', { id: 'm11' })]);
      expect(result.appended[0]?.seq).toBe(12);
      expect(ids(await store.load(ID))).toEqual([...ALL, 'm11']);
      await store.close();
    });
  }

  for (const snapshotDamage of DAMAGES) {
    for (const backupDamage of DAMAGES) {
      it(`snapshot ${snapshotDamage}, backup ${backupDamage}: a recovery session takes the id, the files are kept aside`, async () => {
        const layout = await prepare();
        const before = Object.fromEntries(
          [layout.snapshot, layout.backup, layout.previous, layout.journal]
            .filter((file) => existsSync(file))
            .map((file) => [file.split('/').pop(), readFileSync(file)]),
        );
        damage(layout.snapshot, snapshotDamage);
        damage(layout.backup, backupDamage);
        const damaged = Object.fromEntries(
          [layout.snapshot, layout.backup, layout.previous, layout.journal]
            .filter((file) => existsSync(file))
            .map((file) => [file.split('/').pop(), readFileSync(file)]),
        );
        const { session, reports } = await load(layout.directory);
        expect(session.id).toBe(ID);
        expect(session.metadata.recoveredFrom).toBe(ID);
        expect(session.metadata.reason).toMatch(/^snapshot: .*; backup: .*/);
        expect(session.messages).toHaveLength(1);
        expect(session.messages[0]?.category).toBe('context');
        expect(Message.text(session.messages[0] as Message)).toContain(`Session ${ID} could not be read`);
        expect(reports.map((report) => report.kind)).toEqual(['unreadable']);
        // Every damaged file is kept aside byte for byte, never deleted.
        const aside = keptAside(layout.directory);
        expect([...aside].sort()).toEqual([...(session.metadata.keptAside as string[])].sort());
        expect(aside.map((file) => file.split('/').pop()).sort()).toEqual(Object.keys(damaged).sort());
        for (const file of aside)
          expect(readFileSync(join(layout.directory, file))).toEqual(damaged[file.split('/').pop() as string]);
        expect(Object.keys(before).length).toBeGreaterThanOrEqual(aside.length);
        // The recovery session is stored: listed, appendable.
        const store = fileStore(layout.directory);
        expect((await store.list()).map((row) => [row.id, row.messageCount])).toEqual([[ID, 1]]);
        await store.append(ID, [Message.user('start again')]);
        expect((await store.load(ID)).messages).toHaveLength(2);
        await store.close();
      });
    }
  }

  it('a recovery session keeps the owner the session index last knew, so the owner sees it and forgetting them removes it', async () => {
    const layout = await prepare();
    const lister = fileStore(layout.directory);
    expect((await lister.list({ userId: 'u' })).map((row) => row.id)).toEqual([ID]);
    await lister.close();
    damage(layout.snapshot, 'garbage');
    damage(layout.backup, 'garbage');
    const { session } = await load(layout.directory);
    expect(session.metadata.recoveredFrom).toBe(ID);
    expect(session.userId).toBe('u');
    const store = fileStore(layout.directory);
    expect((await store.list({ userId: 'u' })).map((row) => row.id)).toEqual([ID]);
    expect((await store.forgetUser('u')).removed.sessions).toBe(1);
    expect(await store.get(ID)).toBeUndefined();
    await store.close();
  });

  it('a recovery session of a session no listing ever saw has no owner (nothing left names one)', async () => {
    const layout = await prepare();
    damage(layout.snapshot, 'garbage');
    damage(layout.backup, 'garbage');
    const { session } = await load(layout.directory);
    expect(session.metadata.recoveredFrom).toBe(ID);
    expect(session.userId).toBeUndefined();
  });

  it('two stores loading an unreadable session at once both get the same recovery session', async () => {
    const layout = await prepare();
    damage(layout.snapshot, 'garbage');
    damage(layout.backup, 'zeroed');
    const first = fileStore(layout.directory);
    const second = fileStore(layout.directory);
    const [a, b] = await Promise.all([first.load(ID), second.load(ID)]);
    expect(a.messages[0]?.id).toBe(b.messages[0]?.id);
    expect(a.version).toBe(b.version);
    await Promise.all([first.close(), second.close()]);
    expect(readdirSync(join(layout.directory, 'lost+found'))).toHaveLength(1);
  });
});

describe('file store: journal damage', () => {
  // What `prepare` acknowledged: m10 was the last append, at version 6 with seq 11.
  const REACHED = { version: 6, lastSeq: 11 };

  it('a torn tail (a record without its newline) is dropped, and cut before the next append', async () => {
    const layout = await prepare();
    const last = lines(layout.journal).at(-1) as string;
    appendFileSync(layout.journal, last.slice(0, Math.floor(last.length / 2)));
    const { session, reports } = await load(layout.directory);
    expect(ids(session)).toEqual(ALL);
    expect(reports).toEqual([]);
    const store = fileStore(layout.directory);
    await store.append(ID, [Message.user('next', { id: 'm11' })]);
    await store.close();
    // The half record is gone: the journal is whole lines again, and everything reads back.
    expect(readFileSync(layout.journal, 'utf8').endsWith('\n')).toBe(true);
    expect(lines(layout.journal)).toHaveLength(6);
    expect(ids((await load(layout.directory)).session)).toEqual([...ALL, 'm11']);
    expect(keptAside(layout.directory)).toEqual([]);
  });

  it('a zeroed tail (a file system that extended the file but not its data) is dropped', async () => {
    const layout = await prepare();
    appendFileSync(layout.journal, Buffer.alloc(4096));
    const { session, reports } = await load(layout.directory);
    expect(ids(session)).toEqual(ALL);
    expect(reports).toEqual([]);
  });

  it('a last record cut in half that was never acknowledged (the mark is below it) is dropped quietly', async () => {
    const layout = await prepare();
    // As a crash during m10's write leaves it: the mark still says m9 (version 5, seq 10).
    setMark(layout, { version: 5, lastSeq: 10 });
    const size = statSync(layout.journal).size;
    truncateSync(layout.journal, size - Math.floor((lines(layout.journal).at(-1) as string).length / 2));
    const { session, reports } = await load(layout.directory);
    expect(ids(session)).toEqual(ALL.slice(0, 10));
    expect(session.metadata.recovery).toBeUndefined();
    expect(reports).toEqual([]);
    expect(keptAside(layout.directory)).toEqual([]);
  });

  /** Checks a session lost exactly `lost` of what it acknowledged, says so, and never gives a version or seq twice. */
  async function expectLoss(
    layout: Layout,
    kept: readonly string[],
    lost: { fromSeq: number; fromVersion: number },
    reports: DamageReport[],
    session: Session,
  ): Promise<void> {
    const notice = {
      fromSeq: lost.fromSeq,
      toSeq: REACHED.lastSeq,
      fromVersion: lost.fromVersion,
      toVersion: REACHED.version,
    };
    // The session tells the loss: a context message at the point it resumes, and its metadata.
    expect(ids(session)).toEqual([...kept, `recovery-v${REACHED.version + 1}`]);
    const told = session.messages.at(-1) as Message;
    expect(told.category).toBe('context');
    expect(Message.text(told)).toContain(`Saved messages ${notice.fromSeq}–${notice.toSeq}`);
    expect(told.seq).toBe(REACHED.lastSeq + 1);
    expect(session.metadata.recovery).toEqual([
      expect.objectContaining({ id: `recovery-v${REACHED.version + 1}`, kind: expect.any(String), lost: notice }),
    ]);
    // Reported once, with the notice; the versions moved above the mark (the notice is one more version).
    expect(reports.filter((report) => report.notice !== undefined)).toHaveLength(1);
    expect(reports.find((report) => report.notice !== undefined)?.notice?.lost).toEqual(notice);
    expect(session.version).toBe(REACHED.version + 2);
    const store = fileStore(layout.directory);
    try {
      // A writer that held the last acknowledged version is refused, never accepted on a rewound session.
      await expect(
        store.append(ID, [Message.user('stale', { id: 'stale' })], { expectedVersion: REACHED.version }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      const result = await store.append(ID, [Message.user('after the damage', { id: 'm11' })]);
      expect(result.appended[0]?.seq).toBe(REACHED.lastSeq + 2);
      expect(result.version).toBe(REACHED.version + 3);
      // The notice is kept in the index: list says the session lost data.
      const [row] = await store.list();
      expect(row?.recovery?.map((item) => item.lost)).toEqual([notice]);
      // Lost messages stay lost (not resurrected), and the notice is told once.
      expect(ids(await store.load(ID))).toEqual([...kept, `recovery-v${REACHED.version + 1}`, 'm11']);
    } finally {
      await store.close();
    }
  }

  it('an acknowledged last record cut in half is a loss: the session says so and moves above its mark', async () => {
    const layout = await prepare();
    const size = statSync(layout.journal).size;
    truncateSync(layout.journal, size - Math.floor((lines(layout.journal).at(-1) as string).length / 2));
    const { session, reports } = await load(layout.directory);
    await expectLoss(layout, ALL.slice(0, 10), { fromSeq: 11, fromVersion: 6 }, reports, session);
    expect(keptAside(layout.directory)).toEqual([expect.stringMatching(/\/journal\.2$/)]);
  });

  it('an acknowledged last record with a bad checksum is a loss', async () => {
    const layout = await prepare();
    const all = lines(layout.journal);
    const last = all.at(-1) as string;
    writeFileSync(layout.journal, `${[...all.slice(0, -1), `${last.slice(0, 30)}X${last.slice(31)}`].join('\n')}\n`);
    const { session, reports } = await load(layout.directory);
    await expectLoss(layout, ALL.slice(0, 10), { fromSeq: 11, fromVersion: 6 }, reports, session);
  });

  it('a damaged record in the middle stops the replay there: later records are never replayed, the journal is kept aside', async () => {
    const layout = await prepare();
    const original = readFileSync(layout.journal);
    const all = lines(layout.journal);
    // Record 2 of 4 (m8): one changed byte inside its JSON; m9 and m10 after it are valid.
    const bad = all[2] as string;
    all[2] = bad.replace('later answer 8', 'later answer 9');
    writeFileSync(layout.journal, `${all.join('\n')}\n`);
    const { session, reports } = await load(layout.directory);
    expect(reports[0]?.reason).toMatch(/checksum mismatch/);
    expect(reports[0]).toMatchObject({ kind: 'journal-damaged' });
    const aside = keptAside(layout.directory);
    expect(aside).toEqual([expect.stringMatching(/\/journal\.2$/)]);
    expect(readFileSync(join(layout.directory, aside[0] as string))).not.toEqual(original);
    expect(lines(join(layout.directory, aside[0] as string))).toHaveLength(5);
    // m9 and m10 stay lost (not resurrected), even when appended again they are new messages.
    await expectLoss(layout, ALL.slice(0, 8), { fromSeq: 9, fromVersion: 4 }, reports, session);
  });

  for (const how of ['zeroed', 'garbage'] as const) {
    it(`a journal ${how} whole (its begin record too) is damage, not a torn tail: the snapshot loads, the loss is told, the journal is kept aside`, async () => {
      const layout = await prepare();
      damage(layout.journal, how);
      const { session, reports } = await load(layout.directory);
      expect(reports.map((report) => report.kind)).toEqual(['journal-damaged']);
      expect(keptAside(layout.directory)).toEqual([expect.stringMatching(/\/journal\.2$/)]);
      await expectLoss(layout, ALL.slice(0, 7), { fromSeq: 8, fromVersion: 3 }, reports, session);
    });
  }

  it('a journal emptied to zero bytes: the snapshot loads, the loss is told, the version moves above the mark', async () => {
    const layout = await prepare();
    truncateSync(layout.journal, 0);
    const { session, reports } = await load(layout.directory);
    expect(reports.map((report) => report.kind)).toEqual(['journal-damaged']);
    await expectLoss(layout, ALL.slice(0, 7), { fromSeq: 8, fromVersion: 3 }, reports, session);
  });

  it('a journal truncated to half keeps the records before the cut and tells the loss of the others', async () => {
    const layout = await prepare();
    damage(layout.journal, 'truncated');
    const { session, reports } = await load(layout.directory);
    const kept = ids(session).slice(0, -1);
    expect(kept.slice(0, 7)).toEqual(ALL.slice(0, 7));
    expect(ALL.slice(0, kept.length)).toEqual(kept);
    expect(kept.length).toBeLessThan(11);
    await expectLoss(layout, kept, { fromSeq: kept.length + 1, fromVersion: kept.length - 4 }, reports, session);
  });

  it('a missing journal: the snapshot loads, the loss is told, and appends go on in a new journal', async () => {
    const layout = await prepare();
    damage(layout.journal, 'missing');
    const { session, reports } = await load(layout.directory);
    await expectLoss(layout, ALL.slice(0, 7), { fromSeq: 8, fromVersion: 3 }, reports, session);
  });

  it('list shows a loss no load has repaired yet (found against the mark), and the repair after it', async () => {
    const layout = await prepare();
    damage(layout.journal, 'missing');
    const store = fileStore(layout.directory);
    try {
      const [before] = await store.list();
      expect(before).toMatchObject({
        id: ID,
        version: 2,
        recovery: [{ id: 'recovery-pending', lost: { fromSeq: 8, toSeq: 11, fromVersion: 3, toVersion: 6 } }],
      });
      await store.load(ID);
      const [after] = await store.list();
      expect(after?.recovery?.map((notice) => notice.id)).toEqual(['recovery-v7']);
      expect(after?.version).toBe(8);
    } finally {
      await store.close();
    }
  });

  it('a missing journal whose records were never acknowledged (no mark above the snapshot): appends go on quietly', async () => {
    const layout = await prepare();
    setMark(layout, { version: 2, lastSeq: 7 });
    damage(layout.journal, 'missing');
    const { session, reports } = await load(layout.directory);
    expect(ids(session)).toEqual(ALL.slice(0, 7));
    expect(reports).toEqual([]);
    expect(session.metadata.recovery).toBeUndefined();
  });

  it('the journal the backup needs is only read when the snapshot is damaged: then damage in it stops the replay', async () => {
    const layout = await prepare();
    damage(layout.previous, 'garbage');
    expect(ids((await load(layout.directory)).session)).toEqual(ALL);

    const second = await prepare();
    damage(second.snapshot, 'garbage');
    damage(second.previous, 'garbage');
    const { session, reports } = await load(second.directory);
    // The backup alone: journal 1 is unreadable, so journal 2 (after it) is never reached.
    expect(reports.map((report) => report.kind)).toEqual(['journal-damaged']);
    const aside = keptAside(second.directory)
      .map((file) => file.split('/').pop())
      .sort();
    expect(aside).toEqual(['journal.1', 'journal.2', 'snapshot']);
    expect(reports[0]?.notice?.keptAside.map((file) => file.split('/').pop()).sort()).toEqual(aside);
    await expectLoss(second, ALL.slice(0, 6), { fromSeq: 7, fromVersion: 2 }, reports, session);
  });

  it('backup and current journal damaged, snapshot intact: everything loads from the snapshot up to the damage', async () => {
    const layout = await prepare();
    damage(layout.backup, 'garbage');
    const all = lines(layout.journal);
    all[3] = (all[3] as string).replace('later answer 9', 'later answer 1');
    writeFileSync(layout.journal, `${all.join('\n')}\n`);
    const { session, reports } = await load(layout.directory);
    await expectLoss(layout, ALL.slice(0, 9), { fromSeq: 10, fromVersion: 5 }, reports, session);
  });

  it('a snapshot restored from an older backup after a save: the session never goes back to the backup version', async () => {
    const directory = join(root, `rewound-${count++}`);
    const store = fileStore(directory);
    let session = await store.save(Session.create({ id: ID }).append(Message.user('one', { id: 'a' })));
    for (const id of ['b', 'c', 'd']) session = await store.save(session.append(Message.user(id, { id })));
    const before = await store.load(ID);
    await store.close();
    expect(before.version).toBe(4);
    damage(join(directory, 'sessions', ID, 'snapshot'), 'garbage');
    const reports: DamageReport[] = [];
    const again = fileStore(directory, { onDamage: (report) => reports.push(report) });
    const loaded = await again.load(ID);
    // The backup holds version 3 (a, b, c): d was acknowledged in the snapshot that is gone.
    expect(loaded.messages.map((message) => message.id)).toEqual(['a', 'b', 'c', 'recovery-v5']);
    expect(loaded.version).toBe(6);
    expect(reports.map((report) => [report.kind, report.notice?.lost])).toEqual([
      ['restored-from-backup', { fromSeq: 4, toSeq: 4, fromVersion: 4, toVersion: 4 }],
    ]);
    await expect(again.save(before, { expectedVersion: 4 })).rejects.toMatchObject({ code: 'CONFLICT' });
    const appended = await again.append(ID, [Message.user('e', { id: 'e' })]);
    expect(appended.appended[0]?.seq).toBe(6);
    await again.close();
  });
});

describe('file store: a first save cut short by a crash', () => {
  /** A session directory as a crash during its creation leaves it: `journals` (by content), no snapshot. */
  function cutCreation(directory: string, journals: Record<string, Buffer>): void {
    const dir = join(directory, 'sessions', 'c');
    mkdirSync(dir, { recursive: true });
    for (const [name, content] of Object.entries(journals)) writeFileSync(join(dir, name), content);
  }

  for (const [what, journal] of [
    ['only the begin record of a creation', beginLine(1, 1, 'lineage', 'create')],
    ['an empty journal', Buffer.alloc(0)],
  ] as const) {
    it(`${what}, and no snapshot: no session (nothing was acknowledged), no damage, and it can be created`, async () => {
      const directory = join(root, `cut-${count++}`);
      cutCreation(directory, { 'journal.1': journal, 'snapshot.tmp-999999999-x': Buffer.from('half a snapshot') });
      const reports: DamageReport[] = [];
      const store = fileStore(directory, { onDamage: (report) => reports.push(report) });
      expect(await store.get('c')).toBeUndefined();
      expect(await store.list()).toEqual([]);
      expect(await store.delete('c')).toBe(false);
      cutCreation(directory, { 'journal.1': journal });
      await store.save(Session.create({ id: 'c' }).append(Message.user('now it exists', { id: 'x' })), {
        expectedVersion: 0,
      });
      expect(ids(await store.load('c'))).toEqual(['x']);
      await store.close();
      expect(reports).toEqual([]);
      expect(keptAside(directory)).toEqual([]);
    });
  }

  it('journals of a fold or replace with no snapshot nor backup are damage (a snapshot existed): a recovery session', async () => {
    const directory = join(root, `cut-${count++}`);
    cutCreation(directory, { 'journal.3': beginLine(3, 7, 'lineage', 'fold') });
    const store = fileStore(directory);
    expect((await store.load('c')).metadata.recoveredFrom).toBe('c');
    await store.close();
    expect(keptAside(directory)).toEqual([expect.stringMatching(/\/journal\.3$/)]);
  });
});

describe('file store: records of a newer format', () => {
  it('a snapshot of a newer file-store schema is refused (CORRUPT, newer-format) and left untouched', async () => {
    const layout = await prepare();
    const text = readFileSync(layout.snapshot);
    const newline = text.indexOf(0x0a);
    const header = JSON.parse(text.subarray(9, newline).toString('utf8')) as Record<string, unknown>;
    const newer = Buffer.concat([frameLine({ ...header, s: FILE_SCHEMA + 1 }), text.subarray(newline + 1)]);
    writeFileSync(layout.snapshot, newer);
    const store = fileStore(layout.directory);
    const error = await store.load(ID).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await store.close();
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).details.reason).toBe('newer-format');
    expect(readFileSync(layout.snapshot)).toEqual(newer);
    expect(keptAside(layout.directory)).toEqual([]);
  });
});
