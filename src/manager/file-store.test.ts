import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { fileStore } from '../stores/file/index.js';
import type { RecoveredEvent } from './events.js';
import { SessionManager } from './index.js';

const directories: string[] = [];
const managers: SessionManager[] = [];

function newDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'chatstate-manager-'));
  directories.push(directory);
  return directory;
}

/** A manager over a fresh file store instance in `directory` (as a new process would open it). */
function open(
  directory: string,
  options: { maxSessionsInMemory?: number; maxMessagesPerSession?: number } = {},
): SessionManager {
  const manager = new SessionManager({
    store: fileStore(directory),
    ownsStore: true,
    autoSaveIntervalMs: false,
    ...options,
  });
  managers.push(manager);
  return manager;
}

/** Every file of session `id`'s directory, read as text (ids here are lower case, so the directory is the id). */
function filesOf(directory: string, id: string): Map<string, string> {
  const dir = path.join(directory, 'sessions', id);
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));
}

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((manager) => manager.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('SessionManager over the file store', () => {
  it('close loses nothing: a new process sees every append and every local change', async () => {
    const directory = newDirectory();
    const first = open(directory, { maxSessionsInMemory: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { id } = await first.create({ id: `s${i}` });
      ids.push(id);
      await first.append(id, Message.user(`question ${i}`), Message.assistant(`answer ${i}`));
      await first.update(id, (session) => session.withVariable('turn', i));
    }
    // Two of the four were evicted (and saved); the other two are saved by close.
    expect(first.cachedIds).toEqual(['s2', 's3']);
    await first.close();
    const second = open(directory);
    for (const [i, id] of ids.entries()) {
      const session = await second.load(id);
      expect(session.messages.map((message) => message.content)).toEqual([`question ${i}`, `answer ${i}`]);
      expect(session.variables.turn).toBe(i);
    }
  });

  it('a continuation chain survives a reopen, with its links and one marker per link', async () => {
    const directory = newDirectory();
    const first = open(directory, { maxMessagesPerSession: 4 });
    const { id } = await first.create({ id: 'root', messages: [Message.system('rules')] });
    await first.append(id, Message.user('q1'), Message.assistant('a1'), Message.user('q2'));
    const second = (await first.append(id, Message.assistant('a2'))).session;
    await first.append(id, Message.user('q3'));
    const third = (await first.append(id, Message.assistant('a3'))).session;
    await first.close();
    const reopened = open(directory);
    const stats = await reopened.chainStats(third.id);
    expect(stats.ids).toEqual(['root', second.id, third.id]);
    const last = await reopened.load(third.id);
    expect(last.metadata.continuationIndex).toBe(2);
    expect(last.messages.filter((message) => message.metadata.transition === true)).toHaveLength(1);
  });

  it('a fork is written as its own session: nothing after the fork point, no copy of the source journal', async () => {
    const directory = newDirectory();
    const manager = open(directory);
    const { id } = await manager.create({ id: 'source' });
    const kept = Message.user('kept before the fork');
    await manager.append(id, kept);
    await manager.append(id, Message.assistant('AFTER-THE-FORK-POINT'));
    const { session: fork } = await manager.fork(id, { atMessageId: kept.id, id: 'forked' });
    expect(fork.messages.map((message) => message.content)).toEqual(['kept before the fork']);
    const files = filesOf(directory, 'forked');
    expect([...files.values()].some((text) => text.includes('kept before the fork'))).toBe(true);
    expect([...files.values()].some((text) => text.includes('AFTER-THE-FORK-POINT'))).toBe(false);
  });

  it('an unreadable session comes back as a recovery session and the manager reports it', async () => {
    const directory = newDirectory();
    const first = open(directory);
    const { id } = await first.create({ id: 'fragile' });
    await first.append(id, Message.user('this will be lost'));
    await first.close();
    // Every copy damaged: snapshot, backup and journals all garbage.
    const dir = path.join(directory, 'sessions', id);
    for (const name of readdirSync(dir)) writeFileSync(path.join(dir, name), 'garbage\u0000\u0001 not a record\n');
    const second = open(directory);
    const events: RecoveredEvent[] = [];
    second.on('recovered', (event) => events.push(event));
    const recovered = await second.load(id);
    expect(events).toHaveLength(1);
    expect(events[0]?.recoveredFrom).toBe(id);
    expect(recovered.messages[0]?.content).toContain(id);
    // The recovery session is a working session: appends land in it.
    await second.append(id, Message.user('starting over'));
    expect((await second.load(id)).messages.map((message) => message.content).at(-1)).toBe('starting over');
  });

  it('a session that lost acknowledged messages is reported with its notice, and never goes back a version', async () => {
    const directory = newDirectory();
    const id = 'cut';
    // A save writes the snapshot; appends after it live in its journal, which is then deleted.
    const writer = fileStore(directory);
    const saved = await writer.save(Session.create({ id }).append(Message.user('kept in the snapshot')));
    await writer.append(id, [Message.user('lost one')]);
    const acknowledged = await writer.append(id, [Message.user('lost two')]);
    await writer.close();
    const dir = path.join(directory, 'sessions', id);
    for (const name of readdirSync(dir).filter((file) => file.startsWith('journal.'))) rmSync(path.join(dir, name));
    const second = open(directory);
    const events: RecoveredEvent[] = [];
    second.on('recovered', (event) => events.push(event));
    const loaded = await second.load(id);
    expect(events).toHaveLength(1);
    expect(events[0]?.recoveredFrom).toBeUndefined();
    expect(events[0]?.notices.map((notice) => notice.lost)).toEqual([
      {
        fromSeq: saved.messages.length + 1,
        toSeq: saved.messages.length + 2,
        fromVersion: saved.version + 1,
        toVersion: acknowledged.version,
      },
    ]);
    expect(loaded.version).toBeGreaterThan(acknowledged.version);
    expect(loaded.messages.map((message) => message.content)).toEqual([
      'kept in the snapshot',
      expect.stringContaining('were lost'),
    ]);
  });
});
