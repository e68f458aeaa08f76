/**
 * The file store's snapshot layout (schema 2): one line per record with a block index, so that
 * the tail of a long session is read — and verified — without the rest; records stored as they
 * are (each message parsed once); the ids line appends check against; older (schema-1)
 * snapshots still read and rewritten forward by the next fold; damage found in a block read
 * later repaired from the backup like damage found on opening.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { RECORD_SCHEMA } from '../../src/store/codec.js';
import { rangeOf } from '../../src/store/driver-helpers.js';
import type { HeadRecord, MessageRecord } from '../../src/store/driver-types.js';
import { frameLine } from '../../src/stores/file/frame.js';
import { fileDriver, fileStore, type DamageReport } from '../../src/stores/file/index.js';
import { nodeFileSystem } from '../../src/stores/file/file-system.js';
import { closeSource, loadRange, readSnapshotFile } from '../../src/stores/file/snapshot-file.js';
import {
  BLOCK_BYTES,
  decodeIndex,
  decodeSnapshot,
  decodeSnapshotHeader,
  encodeSnapshot,
  type Block,
} from '../../src/stores/file/snapshot-format.js';

let root: string;
let count = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-snapshot-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function freshDirectory(): string {
  count += 1;
  return join(root, `store-${count}`);
}

function head(id: string, lastSeq: number, count: number): HeadRecord {
  const at = new Date(0).toISOString();
  return {
    id,
    schema: RECORD_SCHEMA,
    version: 1,
    createdAt: at,
    updatedAt: at,
    messageCount: count,
    tokenCount: 0,
    lastSeq,
    data: '{}',
  };
}

/** Records with gaps in their seqs, and ids and data of every awkward kind. */
function records(total: number): MessageRecord[] {
  const awkward = [
    'line one\nline two',
    'a\ttab',
    'lone \ud800 surrogate',
    'pair 😀 ok',
    '"quoted" \\ back',
    '',
    'é ü ñ 中文',
  ];
  const ids = ['m', 'quo"te-', 'back\\slash-', 'ünï-', 'tab\tid-', '}"-'];
  return Array.from({ length: total }, (_, index) => ({
    seq: 1 + index * 2,
    id: `${ids[index % ids.length] as string}${index}`,
    data: `${awkward[index % awkward.length] as string} ${'x'.repeat(index % 300)}`,
  }));
}

function blocksOf(bytes: Buffer): { blocks: Block[]; bodyStart: number } {
  const { header, bodyStart } = decodeSnapshotHeader(bytes);
  const { layout } = header;
  if (layout.kind !== 'lines') throw new Error('expected a schema-2 snapshot');
  const indexStart = bodyStart + layout.body;
  return {
    blocks: decodeIndex(bytes.subarray(indexStart, indexStart + layout.index), layout, header.head.lastSeq),
    bodyStart,
  };
}

describe('snapshot layout', () => {
  it('round-trips records of every kind (newlines, tabs, lone surrogates, extra fields) across many blocks', () => {
    const written = records(3000);
    (written[5] as unknown as Record<string, unknown>).future = { kept: true };
    (written[6] as unknown as Record<string, unknown>).later = 'a "string" field';
    const bytes = encodeSnapshot({ gen: 3, lineage: 'l', head: head('s', 6000, 3000), extra: { newer: 1 } }, written);
    const { header, messages } = decodeSnapshot(bytes);
    expect(messages).toEqual(written);
    expect(header.extra).toEqual({ newer: 1 });
    expect(header.layout).toMatchObject({ kind: 'lines', count: 3000 });
    expect(blocksOf(bytes).blocks.length).toBeGreaterThan(Math.floor(bytes.length / BLOCK_BYTES) - 1);
  });

  it('stores a record’s data as it is: each message is parsed once, not once more as a string in JSON', () => {
    const data = JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'say "hi"\\n' }] });
    const bytes = encodeSnapshot({ gen: 1, lineage: 'l', head: head('s', 1, 1) }, [{ seq: 1, id: 'a', data }]);
    expect(bytes.includes(Buffer.from(`{"seq":1,"id":"a"}\t${data}\n`))).toBe(true);
  });

  it('any changed byte of any block, of the index or of the ids is damage', () => {
    const bytes = encodeSnapshot({ gen: 1, lineage: 'l', head: head('s', 1200, 600) }, records(600));
    const step = Math.floor(bytes.length / 97);
    for (let at = bytes.indexOf(0x0a) + 1; at < bytes.length; at += step) {
      const damaged = Buffer.from(bytes);
      damaged[at] = (damaged[at] as number) ^ 0x20;
      expect(() => decodeSnapshot(damaged), `byte ${at}`).toThrow();
    }
  });

  it('a range read takes the blocks that hold the range and gives what rangeOf gives on every record', () => {
    const all = records(2500);
    const directory = freshDirectory();
    const file = join(directory, 'snapshot');
    mkdirSync(directory, { recursive: true });
    writeFileSync(file, encodeSnapshot({ gen: 1, lineage: 'l', head: head('s', 5000, 2500) }, all));
    const read = readSnapshotFile(nodeFileSystem, file, 's', 'snapshot', false);
    if (read.kind !== 'ok') throw new Error(read.kind);
    expect(read.records).toBeUndefined();
    try {
      fc.assert(
        fc.property(
          fc.option(fc.integer({ min: 0, max: 5100 }), { nil: undefined }),
          fc.option(fc.integer({ min: 0, max: 5100 }), { nil: undefined }),
          fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
          (afterSeq, beforeSeq, limit) => {
            const range = {
              ...(afterSeq === undefined ? {} : { afterSeq }),
              ...(beforeSeq === undefined ? {} : { beforeSeq }),
              ...(limit === undefined ? {} : { limit }),
            };
            expect(loadRange(read.source, range)).toEqual(rangeOf(all, range));
          },
        ),
        { numRuns: 300, seed: 42 },
      );
    } finally {
      closeSource(read.source);
    }
  });
});

/** A session of `total` messages of about 200 bytes each, and a store that folds when told. */
function longHistory(total: number, prefix = 'm'): Message[] {
  return Array.from({ length: total }, (_, index) =>
    Message.assistant(`${prefix} ${index} `.repeat(12), { id: `${prefix}${index}` }),
  );
}

/**
 * The layout the damage tests rely on: a snapshot folded from a saved one (which became the
 * backup) and the journal after it, with several blocks.
 */
async function foldedSession(directory: string, total = 2000): Promise<{ snapshot: string; ids: string[] }> {
  const store = fileStore(directory, { foldBytes: 1 });
  const history = longHistory(total);
  await store.save(Session.create({ id: 's' }).append(...history));
  // A fold starts once the journal holds half the snapshot's bytes: one large message does it.
  await store.append('s', [Message.user(`after the save ${'x'.repeat(total * 150)}`, { id: 'later' })]);
  await store.close();
  const plain = fileStore(directory);
  await plain.append('s', [Message.user('in the new journal', { id: 'last' })]);
  await plain.close();
  const snapshot = join(directory, 'sessions', 's', 'snapshot');
  expect(existsSync(join(directory, 'sessions', 's', 'snapshot.bak'))).toBe(true);
  expect(decodeSnapshot(readFileSync(snapshot)).messages.at(-1)?.id).toBe('later');
  return { snapshot, ids: [...history.map((message) => message.id), 'later', 'last'] };
}

/** Flips one byte inside block `which` of a snapshot (its size unchanged). */
function damageBlock(snapshot: string, which: 'first' | 'last'): void {
  const bytes = readFileSync(snapshot);
  const { blocks, bodyStart } = blocksOf(bytes);
  expect(blocks.length).toBeGreaterThan(3);
  const block = (which === 'first' ? blocks[0] : blocks.at(-1)) as Block;
  const at = bodyStart + block.offset + 20;
  bytes[at] = (bytes[at] as number) ^ 0x01;
  writeFileSync(snapshot, bytes);
}

describe('file store: reads of the snapshot’s parts', () => {
  it('a tail read of a freshly opened store reads the last blocks only: damage in the first block is found by the full load, which restores from the backup', async () => {
    const directory = freshDirectory();
    const { snapshot, ids } = await foldedSession(directory);
    damageBlock(snapshot, 'first');
    const reports: DamageReport[] = [];
    const store = fileStore(directory, { onDamage: (report) => reports.push(report) });
    const tail = await store.readMessages('s', { limit: 5 });
    expect(tail.map((message) => message.id)).toEqual(ids.slice(-5));
    expect(reports).toEqual([]);
    const session = await store.load('s');
    expect(session.messages.map((message) => message.id)).toEqual(ids);
    expect(reports.map((report) => report.kind)).toEqual(['restored-from-backup']);
    await store.close();
    // The repair was written: a fresh store reads everything without a report.
    const again = fileStore(directory, { onDamage: (report) => reports.push(report) });
    expect((await again.load('s')).messages.map((message) => message.id)).toEqual(ids);
    await again.close();
    expect(reports).toHaveLength(1);
  });

  it('damage in a block a tail read needs is repaired from the backup before the read answers', async () => {
    const directory = freshDirectory();
    const { snapshot, ids } = await foldedSession(directory);
    damageBlock(snapshot, 'last');
    const reports: DamageReport[] = [];
    const store = fileStore(directory, { onDamage: (report) => reports.push(report) });
    expect((await store.readMessages('s', { limit: 3 })).map((message) => message.id)).toEqual(ids.slice(-3));
    expect(reports.map((report) => report.kind)).toEqual(['restored-from-backup']);
    expect((await store.load('s')).messages.map((message) => message.id)).toEqual(ids);
    await store.close();
  });

  it('a fold that meets damage in a block no read had touched repairs the session from the backup, and folds go on', async () => {
    const directory = freshDirectory();
    const { snapshot, ids } = await foldedSession(directory);
    damageBlock(snapshot, 'first');
    const reports: DamageReport[] = [];
    const store = fileStore(directory, { foldBytes: 1, onDamage: (report) => reports.push(report) });
    // Appends need only the ids: the damaged block is first met by the fold this large append starts.
    await store.append('s', [Message.user(`big ${'y'.repeat(400_000)}`, { id: 'big' })]);
    await store.close();
    expect(reports.map((report) => report.kind)).toEqual(['restored-from-backup']);
    const again = fileStore(directory, { foldBytes: 1, onDamage: (report) => reports.push(report) });
    await again.append('s', [Message.user(`bigger ${'z'.repeat(900_000)}`, { id: 'bigger' })]);
    expect((await again.load('s')).messages.map((message) => message.id)).toEqual([...ids, 'big', 'bigger']);
    await again.close();
    expect(reports).toHaveLength(1);
    // A fold ran on the repaired snapshot: it holds the message that started it.
    expect(decodeSnapshot(readFileSync(snapshot)).messages.at(-1)?.id).toBe('bigger');
  });

  // 200 kB: room for the session's ids and journal, not for its messages (~300 kB); 1 byte: room for nothing.
  it.each([200_000, 1])(
    'with cacheBytes %i the store keeps sessions without their messages, or drops them: appends still skip stored ids, ranges and loads agree',
    async (cacheBytes) => {
      const directory = freshDirectory();
      const store = fileStore(directory, { cacheBytes, foldBytes: 64 * 1024 });
      const history = longHistory(1500);
      await store.save(Session.create({ id: 's' }).append(...history));
      const expected = history.map((message) => message.id);
      for (let round = 0; round < 40; round += 1) {
        const fresh = Message.user(`round ${round} `.repeat(40), { id: `r${round}` });
        // An old message sent again (a retry) is reported as stored, never stored twice.
        const old = history[(round * 37) % history.length] as Message;
        const result = await store.append('s', [old, fresh]);
        expect(result.duplicates).toEqual([old.id]);
        expected.push(fresh.id);
        const tail = await store.readMessages('s', { limit: 7 });
        expect(tail.map((message) => message.id)).toEqual(expected.slice(-7));
      }
      const middle = await store.readMessages('s', { afterSeq: 700, beforeSeq: 760, limit: 10 });
      expect(middle.map((message) => message.seq)).toEqual(Array.from({ length: 10 }, (_, index) => 750 + index));
      expect((await store.load('s')).messages.map((message) => message.id)).toEqual(expected);
      await store.close();
      const again = fileStore(directory);
      expect((await again.load('s')).messages.map((message) => message.id)).toEqual(expected);
      await again.close();
    },
  );

  it('stored strings of every kind survive a save, a fold and a fresh read (the driver alone)', async () => {
    const directory = freshDirectory();
    const driver = fileDriver(directory, { foldBytes: 1 });
    const all = records(400).map((record, index) => ({ ...record, seq: index + 1 }));
    await driver.replace('raw', { head: head('raw', 400, 400), messages: all });
    // An append past the tiny threshold folds: the snapshot is rewritten from its body and the journal.
    await driver.append('raw', {
      messages: [{ id: 'next', data: 'with\nnewline \udc00', tokens: 1 }],
      updatedAt: new Date(1).toISOString(),
    });
    await driver.close();
    const reader = fileDriver(directory);
    const stored = await reader.readAll('raw');
    await reader.close();
    expect(stored?.messages).toEqual([...all, { seq: 401, id: 'next', data: 'with\nnewline \udc00' }]);
  });
});

/** A schema-1 snapshot of the same content: a header with the body's length and checksum, and a JSON array. */
function legacySnapshot(bytes: Buffer): Buffer {
  const { header, messages } = decodeSnapshot(bytes);
  const body = Buffer.from(JSON.stringify(messages), 'utf8');
  const crc = (crc32(body) >>> 0).toString(16).padStart(8, '0');
  return Buffer.concat([
    frameLine({
      k: 'snapshot',
      s: 1,
      gen: header.gen,
      lineage: header.lineage,
      head: header.head,
      bytes: body.length,
      crc,
    }),
    body,
  ]);
}

describe('file store: snapshots of schema 1 (older versions)', () => {
  it('load, read and append as before, and the next fold rewrites them as schema 2 with every message', async () => {
    const directory = freshDirectory();
    const seed = fileStore(directory);
    const history = longHistory(300, 'old');
    await seed.save(Session.create({ id: 'old' }).append(...history));
    await seed.close();
    const file = join(directory, 'sessions', 'old', 'snapshot');
    writeFileSync(file, legacySnapshot(readFileSync(file)));
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]?.slice(9) ?? '{}')).toMatchObject({ s: 1 });

    const store = fileStore(directory, { foldBytes: 4096 });
    expect((await store.load('old')).messages.map((message) => message.id)).toEqual(
      history.map((message) => message.id),
    );
    expect((await store.readMessages('old', { limit: 2 })).map((message) => message.id)).toEqual(['old298', 'old299']);
    const retry = await store.append('old', [history[0] as Message]);
    expect(retry.duplicates).toEqual(['old0']);
    // Past half the snapshot's bytes in the journal, a fold runs.
    for (let index = 0; index < 30; index += 1)
      await store.append('old', [Message.user(`new ${index} `.repeat(200), { id: `new${index}` })]);
    await store.close();

    const folded = readFileSync(file);
    expect(decodeSnapshotHeader(folded).header.layout.kind).toBe('lines');
    const again = fileStore(directory);
    const ids = (await again.load('old')).messages.map((message) => message.id);
    expect(ids).toEqual([
      ...history.map((message) => message.id),
      ...Array.from({ length: 30 }, (_, index) => `new${index}`),
    ]);
    await again.close();
  });
});
