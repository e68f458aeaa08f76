/**
 * What is particular to the file store, beyond the conformance suite: its URL, that an append
 * writes only the journal (bytes independent of the session's size), folds and backups, the
 * session index, inter-process locks, ids checked again by the driver, its options and name, CLOSED
 * once closed, forward-compatible records, and several stores (as several processes would) over
 * one directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { RECORD_SCHEMA } from '../../src/store/codec.js';
import { FILE_SCHEMA, frameLine } from '../../src/stores/file/frame.js';
import { decodeSnapshot, decodeSnapshotHeader, encodeSnapshot } from '../../src/stores/file/snapshot-format.js';
import { fileDriver, filePathFromUrl, fileStore } from '../../src/stores/file/index.js';
import { ownerOf, ownerText, setLockModeForTesting, tryLock, unlock } from '../../src/stores/file/lock.js';
import { openStore } from '../../src/stores/open-store.js';

let root: string;
let count = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-file-driver-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function freshDirectory(): string {
  count += 1;
  return join(root, `store-${count}`);
}

function sessionFiles(directory: string, id: string): string[] {
  return readdirSync(join(directory, 'sessions', id)).sort();
}

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    if (ChatstateError.isInstance(error)) return error.code;
    throw error;
  }
}

/** A pid that certainly belongs to no process any more. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A minimal head record of version 1, as a driver stores one. */
function headRecord(id: string) {
  return {
    id,
    schema: RECORD_SCHEMA,
    version: 1,
    createdAt: 'a',
    updatedAt: 'a',
    messageCount: 0,
    tokenCount: 0,
    lastSeq: 0,
    data: '{}',
  };
}

describe('file: URLs', () => {
  it('file:DIR is relative to the working directory, file:///abs is absolute', () => {
    expect(filePathFromUrl('file:./sessions')).toBe(resolve('sessions'));
    expect(filePathFromUrl('file:data/chats')).toBe(resolve('data/chats'));
    expect(filePathFromUrl('file:/var/lib/chats')).toBe('/var/lib/chats');
    expect(filePathFromUrl('file:///var/lib/my%20chats')).toBe('/var/lib/my chats');
    expect(filePathFromUrl('FILE:///x')).toBe('/x');
  });

  it('refuses an empty path, another host and NUL bytes', () => {
    for (const url of ['file:', 'file://example.com/x', 'file:a\u0000b']) {
      expect(() => filePathFromUrl(url), url).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('openStore("file:…") opens a file store on that directory', async () => {
    const directory = freshDirectory();
    const store = await openStore(`file:${directory}`);
    expect(store.name).toBe('file');
    await store.save(Session.create({ id: 'via-url' }).append(Message.user('hello')));
    await store.close();
    expect(sessionFiles(directory, 'via-url')).toEqual(['journal.1', 'snapshot', 'watermark']);
    const again = await openStore(`file://${directory}`);
    expect((await again.load('via-url')).messages).toHaveLength(1);
    await again.close();
  });
});

describe('file store: an append writes only the journal', () => {
  it('the snapshot is untouched and the journal grows by the same bytes at 10 and at 2,000 messages', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory);
    const filler = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, index) =>
        Message.assistant(`${prefix} ${index} `.repeat(20), { id: `${prefix}-${index}` }),
      );
    await store.save(Session.create({ id: 'small' }).append(...filler(10, 'small')));
    await store.save(Session.create({ id: 'large' }).append(...filler(2000, 'large')));
    const growth = async (id: string): Promise<{ journal: number; snapshot: boolean }> => {
      const snapshot = join(directory, 'sessions', id, 'snapshot');
      const journal = join(directory, 'sessions', id, 'journal.1');
      const before = { snapshot: statSync(snapshot), journal: statSync(journal).size };
      // Same length of id and text for both sessions.
      await store.append(id, [Message.user('a new question of fixed length', { id: `${id.padEnd(5, '_')}-next` })]);
      const after = statSync(snapshot);
      return {
        journal: statSync(journal).size - before.journal,
        snapshot: after.ino === before.snapshot.ino && after.mtimeMs === before.snapshot.mtimeMs,
      };
    };
    const small = await growth('small');
    const large = await growth('large');
    expect(small.snapshot).toBe(true);
    expect(large.snapshot).toBe(true);
    expect(small.journal).toBeGreaterThan(0);
    expect(small.journal).toBeLessThan(1000);
    // The head fields a record carries differ by a few digits at most.
    expect(Math.abs(large.journal - small.journal)).toBeLessThan(16);
    await store.close();
  });
});

describe('file store: folds and backups', () => {
  it('folds the journal into a new snapshot past the threshold, keeps the previous one as the backup, and loses nothing', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory, { foldBytes: 2048 });
    await store.save(Session.create({ id: 'f' }).append(Message.system('sys')));
    const appended: string[] = [];
    for (let index = 0; index < 200; index += 1) {
      const result = await store.append('f', [Message.assistant(`answer ${index} `.repeat(10), { id: `a${index}` })]);
      appended.push(...result.appended.map((message) => message.id));
    }
    await store.close();
    const files = sessionFiles(directory, 'f');
    expect(files).toContain('snapshot.bak');
    // Journals the backup no longer needs are gone: the current one and the backup's remain.
    expect(files.filter((name) => name.startsWith('journal.')).length).toBeLessThanOrEqual(3);
    expect(files.filter((name) => name.includes('.tmp-'))).toEqual([]);
    const snapshot = decodeSnapshot(readFileSync(join(directory, 'sessions', 'f', 'snapshot')));
    expect(snapshot.messages.length).toBeGreaterThan(100);
    const again = fileStore(directory);
    const session = await again.load('f');
    expect(appended).toHaveLength(200);
    expect(session.messages.slice(1).map((message) => message.id)).toEqual(appended);
    expect(session.messages.map((message) => message.seq)).toEqual(
      Array.from({ length: 201 }, (_, index) => index + 1),
    );
    await again.close();
  });

  it('folds run beside appends of another store on the same directory, and each sees every message', async () => {
    const directory = freshDirectory();
    const folding = fileStore(directory, { foldBytes: 1024 });
    const other = fileStore(directory);
    await folding.save(Session.create({ id: 'shared' }));
    // One at a time, alternating: background folds of the first store overlap appends of the second.
    for (let index = 0; index < 60; index += 1) {
      await folding.append('shared', [Message.user(`from folding ${index} `.repeat(5), { id: `f${index}` })]);
      await other.append('shared', [Message.user(`from other ${index} `.repeat(5), { id: `o${index}` })]);
    }
    const [a, b] = [await folding.load('shared'), await other.load('shared')];
    await Promise.all([folding.close(), other.close()]);
    expect(a.messages).toHaveLength(120);
    expect(b.messages.map((message) => message.id)).toEqual(a.messages.map((message) => message.id));
    expect(new Set(a.messages.map((message) => message.seq)).size).toBe(120);
    expect(sessionFiles(directory, 'shared')).toContain('snapshot.bak');
  });

  it('a temporary file left by a dead writer is removed by the next rewrite; a live writer’s is not', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory);
    await store.save(Session.create({ id: 't' }));
    const dir = join(directory, 'sessions', 't');
    writeFileSync(join(dir, `snapshot.tmp-${deadPid()}-dead`), 'half a snapshot');
    writeFileSync(join(dir, `snapshot.tmp-${process.pid}-mine`), 'in progress');
    await store.save(Session.create({ id: 't' }).append(Message.user('again')));
    await store.close();
    expect(sessionFiles(directory, 't').filter((name) => name.includes('.tmp-'))).toEqual([
      `snapshot.tmp-${process.pid}-mine`,
    ]);
  });
});

describe('file store: the session index', () => {
  async function threeSessions(directory: string): Promise<void> {
    const store = fileStore(directory);
    for (const id of ['one', 'two', 'three'])
      await store.save(Session.create({ id, userId: 'u' }).append(Message.user(`title of ${id}`)));
    await store.close();
  }

  it('is written by list and rebuilt when missing or damaged', async () => {
    const directory = freshDirectory();
    await threeSessions(directory);
    const store = fileStore(directory);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['one', 'three', 'two']);
    await store.close();
    const index = join(directory, 'index');
    expect(existsSync(index)).toBe(true);
    for (const damage of [
      () => rmSync(index),
      () => writeFileSync(index, 'garbage'),
      () => writeFileSync(index, Buffer.alloc(300)),
    ]) {
      damage();
      const fresh = fileStore(directory);
      expect((await fresh.list()).map((row) => row.title).sort()).toEqual([
        'title of one',
        'title of three',
        'title of two',
      ]);
      await fresh.close();
    }
  });

  it('notices sessions changed, added and deleted by another store (another process) since it last looked', async () => {
    const directory = freshDirectory();
    await threeSessions(directory);
    const lister = fileStore(directory);
    expect(await lister.list()).toHaveLength(3);
    const writer = fileStore(directory, { foldBytes: 512 });
    for (let index = 0; index < 20; index += 1)
      await writer.append('one', [Message.assistant(`reply ${index} `.repeat(8))]);
    await writer.delete('two');
    await writer.save(Session.create({ id: 'four' }));
    await writer.close();
    const rows = await lister.list();
    expect(rows.map((row) => row.id).sort()).toEqual(['four', 'one', 'three']);
    expect(rows.find((row) => row.id === 'one')?.messageCount).toBe(21);
    await lister.close();
  });

  it('reads heads only: a session whose messages are damaged is still listed', async () => {
    const directory = freshDirectory();
    await threeSessions(directory);
    const snapshot = join(directory, 'sessions', 'two', 'snapshot');
    const text = readFileSync(snapshot);
    const { bodyStart } = decodeSnapshotHeader(text);
    writeFileSync(snapshot, Buffer.concat([text.subarray(0, bodyStart), Buffer.alloc(text.length - bodyStart, 0x21)]));
    const store = fileStore(directory);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['one', 'three', 'two']);
    await store.close();
  });

  it('ignores what is not a session directory', async () => {
    const directory = freshDirectory();
    await threeSessions(directory);
    mkdirSync(join(directory, 'sessions', '.trash-x'));
    mkdirSync(join(directory, 'sessions', 'UPPER'));
    mkdirSync(join(directory, 'sessions', 'empty'));
    writeFileSync(join(directory, 'sessions', 'stray-file'), 'x');
    const store = fileStore(directory);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['one', 'three', 'two']);
    await store.close();
  });
});

describe('file store: ids', () => {
  it('ids differing only in case get their own directories (case-insensitive file systems cannot merge them)', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory);
    await store.save(Session.create({ id: 'Chat' }).append(Message.user('capital')));
    await store.save(Session.create({ id: 'chat' }).append(Message.user('small')));
    expect(readdirSync(join(directory, 'sessions')).sort()).toEqual(['+chat', 'chat']);
    expect(Message.text((await store.load('Chat')).messages[0] as Message)).toBe('capital');
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['Chat', 'chat']);
    await store.close();
  });

  it('the driver refuses hostile ids itself (without the core) and creates nothing for them', async () => {
    const parent = freshDirectory();
    mkdirSync(parent);
    const directory = join(parent, 'store');
    const driver = fileDriver(directory);
    const head = headRecord('x');
    for (const id of ['../escape', '..', '/tmp/abs', 'a/b', '__proto__', '', 'a\u0000b', '.hidden']) {
      for (const call of [
        () => driver.readHead(id),
        () => driver.readAll(id),
        () => driver.readRange(id, {}),
        () => driver.append(id, { messages: [{ id: 'm', data: '{}', tokens: 1 }], updatedAt: 'a' }),
        () => driver.replace(id, { head: { ...head, id }, messages: [] }),
        () => driver.remove(id),
      ]) {
        expect(await codeOf(call()), JSON.stringify(id)).toBe('INVALID_ID');
      }
    }
    await driver.close();
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe('file store: options, name and close', () => {
  it('refuses a missing directory, an empty or non-string name and each option that is not a positive number with INVALID_ARGUMENT', () => {
    const directory = freshDirectory();
    const refused = (run: () => unknown): string | undefined => {
      try {
        run();
        return undefined;
      } catch (error) {
        return ChatstateError.isInstance(error) ? error.code : `untyped ${String(error)}`;
      }
    };
    expect(refused(() => fileDriver(''))).toBe('INVALID_ARGUMENT');
    expect(refused(() => fileDriver(42 as unknown as string))).toBe('INVALID_ARGUMENT');
    for (const name of ['', 42, {}]) {
      expect(
        refused(() => fileStore(directory, { name: name as unknown as string })),
        String(name),
      ).toBe('INVALID_ARGUMENT');
    }
    for (const option of ['foldBytes', 'lockTimeoutMs', 'cacheBytes', 'maxOpenFiles'] as const) {
      for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5']) {
        expect(
          refused(() => fileStore(directory, { [option]: value as number })),
          `${option} ${String(value)}`,
        ).toBe('INVALID_ARGUMENT');
      }
    }
    // Nothing was created for a store refused at construction.
    expect(existsSync(directory)).toBe(false);
  });

  it('a named store names itself in its errors: core and driver messages, refused ids and options, file-system failures, lock timeouts', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory, { name: 'chats' });
    const missing = await store.load('absent').catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    expect((missing as Error).message).toMatch(/^chats: /);
    await store.save(Session.create({ id: 'l' }));
    await store.close();
    const held = tryLock(join(directory, 'locks', 'l#write'), { foreignStaleMs: 30_000 });
    expect(held).toBeDefined();
    const waiting = fileStore(directory, { name: 'chats', lockTimeoutMs: 150 });
    const locked = await waiting.append('l', [Message.user('blocked')]).catch((caught: unknown) => caught);
    unlock(held as NonNullable<typeof held>);
    await waiting.close();
    expect(locked).toMatchObject({ code: 'UNAVAILABLE', details: { store: 'chats' } });
    expect((locked as Error).message).toMatch(/^chats: /);
    const driver = fileDriver(directory, { name: 'chats' });
    expect(driver.name).toBe('chats');
    const hostile = await driver.readHead('a/b').catch((caught: unknown) => caught);
    expect(hostile).toMatchObject({ code: 'INVALID_ID' });
    expect((hostile as Error).message).toMatch(/^chats: /);
    await driver.close();
    expect(() => fileStore(directory, { name: 'chats', foldBytes: 0 })).toThrow(/^chats: foldBytes/);
    const notDirectory = freshDirectory();
    writeFileSync(notDirectory, 'not a directory');
    const broken = fileStore(notDirectory, { name: 'chats' });
    const failed = await broken.save(Session.create({ id: 'x' })).catch((caught: unknown) => caught);
    await broken.close();
    expect(failed).toMatchObject({ code: 'STORAGE_FAILED' });
    expect((failed as Error).message).toMatch(/^chats: /);
  });

  it('a closed driver answers CLOSED naming the store, for every operation, and closes again quietly', async () => {
    const directory = freshDirectory();
    const driver = fileDriver(directory, { name: 'chats' });
    await driver
      .append('c', { messages: [{ id: 'm', data: '{}', tokens: 1 }], updatedAt: new Date(0).toISOString() })
      .catch(() => undefined);
    await driver.close();
    await driver.close();
    const head = headRecord('c');
    const calls: Record<string, () => Promise<unknown>> = {
      readHead: () => driver.readHead('c'),
      readAll: () => driver.readAll('c'),
      readRange: () => driver.readRange('c', {}),
      append: () => driver.append('c', { messages: [{ id: 'n', data: '{}', tokens: 1 }], updatedAt: 'a' }),
      replace: () => driver.replace('c', { head, messages: [] }),
      list: () => driver.list({ limit: 10, offset: 0, now: Date.now() }),
      remove: () => driver.remove('c'),
      purgeExpired: () => driver.purgeExpired(Date.now()),
      readValues: () => driver.readValues('ns'),
      writeValues: () => driver.writeValues('ns', [{ key: 'k', data: '1' }]),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error, name).toMatchObject({ code: 'CLOSED', details: { store: 'chats' } });
      expect((error as Error).message, name).toBe('chats: the store is closed');
    }
  });
});

const SOURCE = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * A child process that appends `count` messages to `sessionId` one after another, as fast as it
 * can, once it printed `READY`; then prints `DONE <seqs>` and stays alive, idle, until killed.
 */
function writerProcess(
  directory: string,
  sessionId: string,
  tag: string,
  count: number,
): { child: ChildProcess; ready: Promise<void>; done: Promise<number[]> } {
  const script = `
    import { fileStore } from ${JSON.stringify(join(SOURCE, 'stores/file/index.ts'))};
    import { Message } from ${JSON.stringify(join(SOURCE, 'message/message.ts'))};
    const [directory, sessionId, tag, count] = process.argv.slice(1);
    const store = fileStore(directory);
    await store.get(sessionId);
    process.stdout.write('READY\\n');
    const seqs = [];
    for (let index = 0; index < Number(count); index += 1) {
      const result = await store.append(sessionId, [Message.user(tag + index, { id: tag + index })]);
      seqs.push(result.appended[0].seq);
    }
    process.stdout.write('DONE ' + JSON.stringify(seqs) + '\\n');
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script, directory, sessionId, tag, String(count)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const waitFor = async (prefix: string): Promise<string> => {
    for (;;) {
      const line = stdout
        .split('\n')
        .find((candidate) => candidate.startsWith(prefix) && stdout.includes(`${candidate}\n`));
      if (line !== undefined) return line;
      if (child.exitCode !== null) throw new Error(`writer exited: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    child,
    ready: waitFor('READY').then(() => undefined),
    done: waitFor('DONE ').then((line) => JSON.parse(line.slice(5)) as number[]),
  };
}

describe('file store: locks between processes', () => {
  afterEach(() => setLockModeForTesting(undefined));

  async function withSession(directory: string): Promise<void> {
    const store = fileStore(directory);
    await store.save(Session.create({ id: 'l' }));
    await store.close();
  }

  it('a lock is a hard link to an owner file the process writes once: no new file per lock, nothing left after release', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const locks = join(directory, 'locks');
    const held = tryLock(join(locks, 'probe'), { foreignStaleMs: 30_000 });
    expect(held?.mode).toBe('link');
    const owners = readdirSync(locks).filter((name) => name.startsWith('.owner-'));
    expect(owners).toEqual([expect.stringMatching(new RegExp(`^\\.owner-${process.pid}-[0-9a-f]{12}$`))]);
    const lock = lstatSync(join(locks, 'probe'));
    expect(lock.isFile() && lock.nlink === 2 && lock.ino === lstatSync(join(locks, owners[0] as string)).ino).toBe(
      true,
    );
    expect(readFileSync(join(locks, 'probe'), 'utf8')).toMatch(new RegExp(`^cs1 ${process.pid} `));
    // A second lock links to the same file; a waiting store sees the first as held.
    const second = tryLock(join(locks, 'other'), { foreignStaleMs: 30_000 });
    expect(tryLock(join(locks, 'probe'), { foreignStaleMs: 30_000 })).toBeUndefined();
    unlock(held as NonNullable<typeof held>);
    unlock(second as NonNullable<typeof second>);
    expect(readdirSync(locks)).toEqual([]);
  });

  it('a link lock left by a dead process is broken, and its owner file is swept', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const dead = deadPid();
    const owner = join(directory, 'locks', `.owner-${dead}-dead00000000`);
    writeFileSync(owner, ownerText(ownerOf(dead, 'dead00000000')));
    linkSync(owner, join(directory, 'locks', 'l#write'));
    const store = fileStore(directory, { lockTimeoutMs: 5000 });
    await store.append('l', [Message.user('after the crash')]);
    expect((await store.load('l')).messages).toHaveLength(1);
    await store.close();
    expect(readdirSync(join(directory, 'locks'))).toEqual([]);
  });

  it('where hard links are refused, symbolic links are the locks', async () => {
    setLockModeForTesting('symlink');
    const directory = freshDirectory();
    await withSession(directory);
    const held = tryLock(join(directory, 'locks', 'probe'), { foreignStaleMs: 30_000 });
    expect(held?.mode).toBe('symlink');
    expect(lstatSync(join(directory, 'locks', 'probe')).isSymbolicLink()).toBe(true);
    unlock(held as NonNullable<typeof held>);
    const a = fileStore(directory);
    const b = fileStore(directory);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? a : b).append('l', [Message.user(`m${index}`, { id: `m${index}` })]),
      ),
    );
    expect((await a.load('l')).messages).toHaveLength(20);
    await Promise.all([a.close(), b.close()]);
    expect(readdirSync(join(directory, 'locks'))).toEqual([]);
  });

  it('a process that stops writing gives the lock up at once, though it stays open: another process appends without waiting', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const writer = writerProcess(directory, 'l', 'child', 20);
    try {
      await writer.ready;
      expect(await writer.done).toHaveLength(20);
      // The child is alive, its store open and idle: its owner file is there, no lock of it is.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readdirSync(join(directory, 'locks')).filter((name) => !name.startsWith('.owner-'))).toEqual([]);
      const store = fileStore(directory, { lockTimeoutMs: 2000 });
      await store.append('l', [Message.user('from the parent', { id: 'parent' })]);
      expect((await store.load('l')).messages.map((message) => message.id).at(-1)).toBe('parent');
      await store.close();
    } finally {
      writer.child.kill('SIGKILL');
    }
  }, 60_000);

  it('two processes appending without pause take turns with the lock (a lease is handed to a waiting process)', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const writer = writerProcess(directory, 'l', 'child', 300);
    const store = fileStore(directory);
    try {
      await writer.ready;
      const mine: number[] = [];
      for (let index = 0; index < 300; index += 1)
        mine.push(
          (await store.append('l', [Message.user(`parent${index}`, { id: `parent${index}` })])).appended[0]?.seq ?? 0,
        );
      const theirs = await writer.done;
      // Interleaved, not one after the other: each got the lock while the other was still writing.
      expect(Math.min(...theirs)).toBeLessThan(Math.max(...mine));
      expect(Math.min(...mine)).toBeLessThan(Math.max(...theirs));
      expect(new Set([...mine, ...theirs]).size).toBe(600);
      expect((await store.load('l')).messages).toHaveLength(600);
    } finally {
      writer.child.kill('SIGKILL');
      await store.close();
    }
  }, 60_000);

  it('a lock left by a dead process is broken', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    symlinkSync(ownerText(ownerOf(deadPid(), 'dead00000000')), join(directory, 'locks', 'l#write'));
    const store = fileStore(directory, { lockTimeoutMs: 5000 });
    await store.append('l', [Message.user('after the crash')]);
    expect((await store.load('l')).messages).toHaveLength(1);
    await store.close();
    expect(readdirSync(join(directory, 'locks'))).toEqual([]);
  });

  it('a lock of a live process is waited for, and is UNAVAILABLE after lockTimeoutMs', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const held = tryLock(join(directory, 'locks', 'l#write'), { foreignStaleMs: 30_000 });
    expect(held).toBeDefined();
    const store = fileStore(directory, { lockTimeoutMs: 150 });
    const error = await store.append('l', [Message.user('blocked')]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'LOCKED' } });
    const waiting = store.append('l', [Message.user('waits')]);
    setTimeout(() => unlock(held as NonNullable<typeof held>), 50);
    await waiting;
    expect((await store.load('l')).messages.map((message) => Message.text(message))).toEqual(['waits']);
    await store.close();
  });

  it('a store writing without pause lets a waiting store in (the lock is a short lease, not a monopoly)', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const a = fileStore(directory);
    const b = fileStore(directory);
    const writer = async (store: typeof a, tag: string): Promise<number[]> => {
      const order: number[] = [];
      for (let index = 0; index < 150; index += 1) {
        const result = await store.append('l', [Message.user(`${tag}${index}`, { id: `${tag}${index}` })]);
        order.push(result.appended[0]?.seq ?? 0);
      }
      return order;
    };
    const [fromA, fromB] = await Promise.all([writer(a, 'a'), writer(b, 'b')]);
    await Promise.all([a.close(), b.close()]);
    // Interleaved, not one after the other: B got the lock while A was still writing.
    expect(Math.min(...fromB)).toBeLessThan(Math.max(...fromA));
    expect(Math.min(...fromA)).toBeLessThan(Math.max(...fromB));
    expect(new Set([...fromA, ...fromB]).size).toBe(300);
    expect(readdirSync(join(directory, 'locks'))).toEqual([]);
  });

  it('a lock of another host is trusted until it is old, then broken', async () => {
    const directory = freshDirectory();
    await withSession(directory);
    const lock = join(directory, 'locks', 'l#write');
    symlinkSync(ownerText(ownerOf(1, 'far000000000', 'another-host')), lock);
    const store = fileStore(directory, { lockTimeoutMs: 100 });
    expect(await codeOf(store.append('l', [Message.user('blocked')]))).toBe('UNAVAILABLE');
    const old = new Date(Date.now() - 60_000);
    lutimesSync(lock, old, old);
    await store.append('l', [Message.user('after it went stale')]);
    await store.close();
  });

  it('where symbolic links are refused, exclusive files are the locks; an unwritten one is stale after a while', async () => {
    setLockModeForTesting('file');
    const directory = freshDirectory();
    await withSession(directory);
    const held = tryLock(join(directory, 'locks', 'probe'), { foreignStaleMs: 30_000 });
    expect(held?.mode).toBe('file');
    expect(lstatSync(join(directory, 'locks', 'probe')).isFile()).toBe(true);
    unlock(held as NonNullable<typeof held>);
    const store = fileStore(directory, { lockTimeoutMs: 100 });
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.append('l', [Message.user(`m${index}`)])));
    expect((await store.load('l')).messages).toHaveLength(20);
    await store.close();
    // A lock file whose owner never wrote itself in: live for a moment, stale once old.
    const lock = join(directory, 'locks', 'l#write');
    writeFileSync(lock, '');
    const other = fileStore(directory, { lockTimeoutMs: 100 });
    expect(await codeOf(other.append('l', [Message.user('blocked')]))).toBe('UNAVAILABLE');
    const old = new Date(Date.now() - 10_000);
    lutimesSync(lock, old, old);
    await other.append('l', [Message.user('after')]);
    await other.close();
  });
});

describe('file store: file-system failures', () => {
  it.skipIf(process.getuid?.() === 0)(
    'a directory it may not write is STORAGE_FAILED naming the store, never a raw error (needs a non-root user: root writes anywhere)',
    async () => {
      const directory = freshDirectory();
      mkdirSync(directory, { mode: 0o500 });
      const store = fileStore(directory);
      const error = await store.save(Session.create({ id: 'ro' })).catch((caught: unknown) => caught);
      await store.close();
      expect(error).toMatchObject({ code: 'STORAGE_FAILED', details: { errno: 'EACCES' } });
      expect((error as Error).message).toMatch(/^file: /);
    },
  );

  it('a store directory that is a file is STORAGE_FAILED on write and empty on read', async () => {
    const directory = freshDirectory();
    writeFileSync(directory, 'not a directory');
    const store = fileStore(directory);
    expect(await store.get('x')).toBeUndefined();
    expect(await codeOf(store.save(Session.create({ id: 'x' })))).toBe('STORAGE_FAILED');
    await store.close();
  });
});

describe('file store: records keep fields of newer versions', () => {
  it('unknown snapshot, head and message-record fields survive a fold', async () => {
    const directory = freshDirectory();
    const seed = fileStore(directory);
    await seed.save(Session.create({ id: 'future' }).append(Message.user('hello', { id: 'h' })));
    await seed.close();
    const file = join(directory, 'sessions', 'future', 'snapshot');
    const { header, messages } = decodeSnapshot(readFileSync(file));
    writeFileSync(
      file,
      encodeSnapshot(
        {
          gen: header.gen,
          lineage: header.lineage,
          head: { ...header.head, futureHead: 'kept' } as typeof header.head,
          extra: { futureSnapshot: { n: 1 } },
        },
        messages.map((record) => ({ ...record, futureMessage: true })),
      ),
    );
    const store = fileStore(directory, { foldBytes: 256 });
    for (let index = 0; index < 10; index += 1)
      await store.append('future', [Message.assistant(`reply ${index} `.repeat(10))]);
    await store.close();
    const folded = decodeSnapshot(readFileSync(file));
    expect(folded.header.gen).toBeGreaterThan(header.gen);
    expect(folded.header.extra).toEqual({ futureSnapshot: { n: 1 } });
    expect((folded.header.head as unknown as Record<string, unknown>).futureHead).toBe('kept');
    expect((folded.messages[0] as unknown as Record<string, unknown>).futureMessage).toBe(true);
    // The fold took in appended messages (how many depends on when the last one ran), and none is lost.
    expect(folded.messages.length).toBeGreaterThan(1);
    const again = fileStore(directory);
    expect((await again.load('future')).messages).toHaveLength(11);
    await again.close();
  });

  it('a journal line of a newer schema is refused, never skipped', async () => {
    const directory = freshDirectory();
    const seed = fileStore(directory);
    await seed.save(Session.create({ id: 'newer' }));
    await seed.close();
    writeFileSync(
      join(directory, 'sessions', 'newer', 'journal.1'),
      frameLine({ k: 'begin', s: FILE_SCHEMA + 1, gen: 1 }),
      { flag: 'a' },
    );
    const store = fileStore(directory);
    const error = await store.load('newer').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CORRUPT', details: { reason: 'newer-format' } });
    await store.close();
  });
});

describe('file store: several stores over one directory', () => {
  it('a store with a cached session sees replaces, deletes and re-creations by another', async () => {
    const directory = freshDirectory();
    const a = fileStore(directory);
    const b = fileStore(directory);
    await a.save(Session.create({ id: 'c' }).append(Message.user('first')));
    expect((await a.load('c')).messages).toHaveLength(1);
    const loaded = await b.load('c');
    await b.save(loaded.append(Message.user('second')), { expectedVersion: loaded.version });
    expect((await a.load('c')).messages).toHaveLength(2);
    await b.append('c', [Message.user('third')]);
    expect((await a.readMessages('c', { limit: 1 })).map((message) => Message.text(message))).toEqual(['third']);
    expect(await b.delete('c')).toBe(true);
    expect(await a.get('c')).toBeUndefined();
    expect(await codeOf(a.append('c', [Message.user('nowhere')]))).toBe('NOT_FOUND');
    await b.save(Session.create({ id: 'c' }).append(Message.user('reborn')));
    expect((await a.load('c')).messages.map((message) => Message.text(message))).toEqual(['reborn']);
    await Promise.all([a.close(), b.close()]);
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'keeps a bounded number of journals open however many sessions it touches',
    async () => {
      const directory = freshDirectory();
      const store = fileStore(directory, { maxOpenFiles: 128 });
      const before = readdirSync('/proc/self/fd').length;
      for (let index = 0; index < 300; index += 1) {
        await store.save(Session.create({ id: `s${index}` }));
        await store.append(`s${index}`, [Message.user('hi')]);
      }
      const during = readdirSync('/proc/self/fd').length;
      expect(during - before).toBeLessThanOrEqual(140);
      // Appends back to back, each flushed on this thread (nothing else waits): a chain of promises
      // that never yields to the event loop still keeps locks and files bounded.
      let mostLocks = 0;
      let mostFiles = 0;
      for (let index = 0; index < 300; index += 1) {
        await store.append(`s${index}`, [Message.user('again and again')]);
        mostLocks = Math.max(mostLocks, readdirSync(join(directory, 'locks')).length);
        mostFiles = Math.max(mostFiles, readdirSync('/proc/self/fd').length - before);
      }
      expect(mostLocks).toBeLessThanOrEqual(20);
      expect(mostFiles).toBeLessThanOrEqual(140);
      // Sessions whose journal was closed still read and append correctly.
      await store.append('s0', [Message.user('again')]);
      expect((await store.load('s0')).messages).toHaveLength(3);
      await store.close();
      expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before + 2);
    },
  );

  it('close lets a background fold finish: no temporary file is left behind', async () => {
    const directory = freshDirectory();
    const store = fileStore(directory, { foldBytes: 512 });
    await store.save(Session.create({ id: 'bg' }));
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => store.append('bg', [Message.user(`m${index} `.repeat(10))])),
    );
    await store.close();
    expect(sessionFiles(directory, 'bg').filter((name) => name.includes('.tmp-'))).toEqual([]);
    const again = fileStore(directory);
    expect((await again.load('bg')).messages).toHaveLength(40);
    await again.close();
  });
});
