import { afterEach, describe, expect, it } from 'vitest';
import { DataError, UnavailableError } from '../errors.js';
import { Message } from '../message/message.js';
import { FORKS_KEY, MAX_FORK_ENTRIES, forkLog } from '../session/fork-log.js';
import { Session } from '../session/session.js';
import { memoryStore } from '../stores/memory.js';
import type { SessionStore } from '../store/session-store-types.js';
import { tenantStore } from '../tenancy/tenant-store.js';
import { RECORD_ATTEMPTS } from './fork.js';
import { SessionManager } from './index.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';

const managers: SessionManager[] = [];

/** A memory store that counts the calls the manager makes, to check how a fork is written. */
function countingStore(): { store: SessionStore; calls: string[] } {
  const inner = memoryStore();
  const calls: string[] = [];
  const store = wrappedStore(inner, {
    name: 'counting',
    load: (id) => (calls.push(`load ${id}`), inner.load(id)),
    get: (id) => (calls.push(`get ${id}`), inner.get(id)),
    save: (session, options) => (calls.push(`save ${session.id}`), inner.save(session, options)),
    append: (id, messages, options) => (calls.push(`append ${id}`), inner.append(id, messages, options)),
  });
  return { store, calls };
}

function managerOf(store: SessionStore): SessionManager {
  const manager = new SessionManager({ store, autoSaveIntervalMs: false });
  managers.push(manager);
  return manager;
}

/** A stored session `source` with two messages; the first is `at`. */
async function sourceWithMessages(manager: SessionManager): Promise<{ id: string; at: Message }> {
  const { id } = await manager.create({ id: 'source' });
  const { appended } = await manager.append(id, Message.user('which way?'), Message.assistant('left'));
  return { id, at: appended[0] as Message };
}

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((manager) => manager.close()));
});

describe('fork', () => {
  it('keeps the history up to and including the message, records forkedFrom, and writes with one save', async () => {
    const { store, calls } = countingStore();
    const manager = managerOf(store);
    const source = await manager.create({
      userId: 'ann',
      variables: { plan: 'A' },
      metadata: { tag: 't' },
      messages: [Message.system('rules')],
    });
    const question = Message.user('which way?');
    await manager.append(source.id, question, Message.assistant('left'));
    await manager.append(source.id, Message.user('and then?'));
    calls.length = 0;
    const result = await manager.fork(source.id, { atMessageId: question.id });
    const fork = result.session;
    // One save for the fork, one for its source's list of forks.
    expect(calls).toEqual([`save ${fork.id}`, `save ${source.id}`]);
    expect(fork.id).not.toBe(source.id);
    expect(fork.messages.map((message) => message.content)).toEqual(['rules', 'which way?']);
    expect(fork.metadata).toEqual({ tag: 't', forkedFrom: { sessionId: source.id, messageId: question.id, seq: 2 } });
    expect([fork.userId, fork.variables]).toEqual(['ann', { plan: 'A' }]);
    const stored = await store.load(fork.id);
    expect(stored.messages.map((message) => message.id)).toEqual(fork.messages.map((message) => message.id));
    // The fork lives on its own: appends to it leave the source alone.
    await manager.append(fork.id, Message.assistant('right'));
    expect((await store.load(source.id)).messages).toHaveLength(4);
    expect((await store.load(fork.id)).messages.map((message) => message.content)).toEqual([
      'rules',
      'which way?',
      'right',
    ]);
  });

  it('forks at the last message, with a chosen id, including unsaved local changes (saved with the record)', async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const { id } = await manager.create();
    const { appended } = await manager.append(id, Message.user('only'));
    await manager.update(id, (session) => session.withVariable('draft', true));
    const { session: fork } = await manager.fork(id, { atMessageId: appended[0]?.id as string, id: 'my-fork' });
    expect([fork.id, fork.messages.length, fork.variables.draft]).toEqual(['my-fork', 1, true]);
    expect(manager.isDirty(id)).toBe(false);
    expect((await store.load(id)).variables.draft).toBe(true);
    await expect(manager.fork(id, { atMessageId: appended[0]?.id as string, id: 'my-fork' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // The refused fork was not recorded: the source lists the one fork.
    expect(forkLog((await store.load(id)).metadata).map((entry) => entry.sessionId)).toEqual(['my-fork']);
  });

  it('an unknown message id is NOT_FOUND and stores nothing', async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const { id } = await manager.create();
    await manager.append(id, Message.user('hi'));
    const version = (await store.load(id)).version;
    await expect(manager.fork(id, { atMessageId: 'msg_nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await store.list()).map((row) => row.id)).toEqual([id]);
    expect((await store.load(id)).version).toBe(version);
  });

  it('a fork of a continuation does not claim its links', async () => {
    const manager = managerOf(memoryStore());
    const { id } = await manager.create({ messages: [Message.context('facts')] });
    const successor = await manager.continueSession(id);
    const { session: fork } = await manager.fork(successor.id, { atMessageId: successor.messages[0]?.id as string });
    expect(fork.metadata).toEqual({
      forkedFrom: { sessionId: successor.id, messageId: successor.messages[0]?.id, seq: 1 },
    });
  });
});

describe('forks recorded on their source', () => {
  it('the source lists each fork with the message it was taken at; its list row carries the ids', async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const { id, at } = await sourceWithMessages(manager);
    const first = await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    const second = await manager.fork(id, { atMessageId: at.id, id: 'fork-2' });
    expect(first.recorded && second.recorded).toBe(true);
    if (!second.recorded) return;
    expect(forkLog(second.source.metadata)).toEqual([
      { sessionId: 'fork-1', messageId: at.id, seq: 1, createdAt: first.session.createdAt },
      { sessionId: 'fork-2', messageId: at.id, seq: 1, createdAt: second.session.createdAt },
    ]);
    expect((await store.summary(id))?.forks).toEqual(['fork-1', 'fork-2']);
    expect((await store.list()).find((row) => row.id === id)?.forks).toEqual(['fork-1', 'fork-2']);
    expect((await store.summary('fork-1'))?.forkedFrom).toEqual({ sessionId: id, messageId: at.id, seq: 1 });
  });

  it('neither a fork nor a successor inherits the list of forks', async () => {
    const manager = managerOf(memoryStore());
    const { id, at } = await sourceWithMessages(manager);
    await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    const { session: again } = await manager.fork(id, { atMessageId: at.id, id: 'fork-2' });
    expect(again.metadata[FORKS_KEY]).toBeUndefined();
    const successor = await manager.continueSession(id);
    expect(successor.metadata[FORKS_KEY]).toBeUndefined();
    expect((await manager.load(id)).metadata[FORKS_KEY]).toHaveLength(2);
  });

  it('a concurrent writer is never overwritten: the record is replayed on its newer version', async () => {
    const inner = memoryStore();
    let armed = false;
    let interfered = false;
    const store = wrappedStore(inner, {
      save: async (session, options) => {
        // Another process writes the source between the manager's read and its write.
        if (armed && session.id === 'source' && !interfered) {
          interfered = true;
          const current = await inner.load('source');
          await inner.save(current.withMetadata({ other: 'writer' }), { expectedVersion: current.version });
          await inner.append('source', [Message.user('from the other writer')]);
        }
        return inner.save(session, options);
      },
    });
    const manager = managerOf(store);
    const { id, at } = await sourceWithMessages(manager);
    armed = true;
    const result = await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    expect(interfered).toBe(true);
    expect(result.recorded).toBe(true);
    const stored = await inner.load(id);
    expect(stored.metadata.other).toBe('writer');
    expect(stored.messages.map((message) => message.content)).toContain('from the other writer');
    expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(['fork-1']);
  });

  it(`keeps the newest ${MAX_FORK_ENTRIES} forks, dropping the oldest`, async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const old = Array.from({ length: MAX_FORK_ENTRIES }, (_, i) => ({
      sessionId: `old-${i}`,
      createdAt: '2026-01-01T00:00:00.000Z',
    }));
    await store.save(Session.create({ id: 'source', metadata: { [FORKS_KEY]: old }, messages: [Message.user('hi')] }));
    const at = (await store.load('source')).messages[0] as Message;
    await manager.fork('source', { atMessageId: at.id, id: 'newest' });
    const ids = forkLog((await store.load('source')).metadata).map((entry) => entry.sessionId);
    expect(ids).toHaveLength(MAX_FORK_ENTRIES);
    expect([ids[0], ids.at(-1)]).toEqual(['old-1', 'newest']);
    expect((await store.summary('source'))?.forks).toEqual(ids);
  });

  it('a failure to record the fork is retried, then reported in the result; the fork stays stored', async () => {
    const inner = memoryStore();
    let sourceSaves = 0;
    let failing = false;
    const store = wrappedStore(inner, {
      save: async (session, options) => {
        if (failing && session.id === 'source') {
          sourceSaves += 1;
          throw new UnavailableError('test: the store is down', { store: 'test', reason: 'CONNECTION' });
        }
        return inner.save(session, options);
      },
    });
    const manager = managerOf(store);
    const { id, at } = await sourceWithMessages(manager);
    const before = await inner.load(id);
    failing = true;
    const result = await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    expect(result.recorded).toBe(false);
    if (result.recorded) return;
    expect(result.error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(sourceSaves).toBe(RECORD_ATTEMPTS);
    expect((await inner.load('fork-1')).metadata.forkedFrom).toMatchObject({ sessionId: id });
    expect((await inner.load(id)).version).toBe(before.version);
    expect(manager.isDirty(id)).toBe(false);
  });

  it('a failure no retry can mend is reported at once; a session too busy ends as CONFLICT', async () => {
    const inner = memoryStore();
    let mode: 'ok' | 'corrupt' | 'busy' = 'ok';
    let sourceSaves = 0;
    const store = wrappedStore(inner, {
      save: async (session, options) => {
        if (session.id !== 'source' || mode === 'ok') return inner.save(session, options);
        sourceSaves += 1;
        if (mode === 'corrupt') throw new DataError('CORRUPT', 'test: damaged');
        // Another writer gets in before every write.
        const current = await inner.load('source');
        await inner.save(current.withMetadata({ turn: sourceSaves }), { expectedVersion: current.version });
        return inner.save(session, options);
      },
    });
    const manager = managerOf(store);
    const { id, at } = await sourceWithMessages(manager);
    mode = 'corrupt';
    const damaged = await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    expect([damaged.recorded, sourceSaves]).toEqual([false, 1]);
    expect(damaged.recorded ? undefined : damaged.error.code).toBe('CORRUPT');
    mode = 'busy';
    const busy = await manager.fork(id, { atMessageId: at.id, id: 'fork-2' });
    expect(busy.recorded ? undefined : busy.error.code).toBe('CONFLICT');
    // The other writer's changes all stand; neither fork is listed.
    const stored = await inner.load(id);
    expect(stored.metadata.turn).toBe(sourceSaves);
    expect(stored.metadata[FORKS_KEY]).toBeUndefined();
  });

  it("through a tenant's view, the source lists the fork by the tenant's own id", async () => {
    const raw = memoryStore();
    const manager = managerOf(tenantStore(raw, { tenant: 'acme' }));
    const { id, at } = await sourceWithMessages(manager);
    await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    expect(forkLog((await raw.load('acme.source')).metadata).map((entry) => entry.sessionId)).toEqual(['fork-1']);
    expect((await manager.store.summary(id))?.forks).toEqual(['fork-1']);
    expect((await raw.load('acme.fork-1')).metadata.forkedFrom).toMatchObject({ sessionId: 'source' });
  });
});

describe('a deleted fork leaves its source', () => {
  /** Source `source` with forks `fork-1` and `fork-2`, through `manager`. */
  async function forked(manager: SessionManager): Promise<{ id: string; at: Message }> {
    const made = await sourceWithMessages(manager);
    await manager.fork(made.id, { atMessageId: made.at.id, id: 'fork-1' });
    await manager.fork(made.id, { atMessageId: made.at.id, id: 'fork-2' });
    return made;
  }

  it("removes the fork from the source's metadata.forks and list row, keeping the others", async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const { id } = await forked(manager);
    expect(await manager.delete('fork-1')).toBe(true);
    const stored = await store.load(id);
    expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(['fork-2']);
    expect((await store.summary(id))?.forks).toEqual(['fork-2']);
    // The manager's own copy says the same.
    expect(forkLog((await manager.load(id)).metadata).map((entry) => entry.sessionId)).toEqual(['fork-2']);
    expect(await manager.delete('fork-2')).toBe(true);
    // The last one gone: an empty log, and no forks on the list row.
    expect((await store.load(id)).metadata[FORKS_KEY]).toEqual([]);
    expect((await store.summary(id))?.forks).toBeUndefined();
  });

  it('a fresh manager (another process) unlinks it too; deleting the source or a plain session writes nothing else', async () => {
    const { store, calls } = countingStore();
    const first = managerOf(store);
    const { id } = await forked(first);
    const second = managerOf(store);
    calls.length = 0;
    expect(await second.delete('fork-1')).toBe(true);
    expect(calls.filter((call) => call.startsWith('save'))).toEqual([`save ${id}`]);
    expect((await store.summary(id))?.forks).toEqual(['fork-2']);
    // The source deleted first: its fork's delete has nothing to mend, and no error.
    const errors: unknown[] = [];
    second.on('error', (error) => errors.push(error));
    expect(await second.delete(id)).toBe(true);
    calls.length = 0;
    expect(await second.delete('fork-2')).toBe(true);
    expect(calls.filter((call) => call.startsWith('save'))).toEqual([]);
    expect(errors).toEqual([]);
    expect(await store.get('fork-2')).toBeUndefined();
  });

  it('a source that does not list the fork is not written', async () => {
    const { store, calls } = countingStore();
    const manager = managerOf(store);
    const { id, at } = await sourceWithMessages(manager);
    await manager.fork(id, { atMessageId: at.id, id: 'fork-1' });
    const listed = await store.load(id);
    // Metadata is anyone's to write: another writer emptied the log.
    await store.save(listed.withMetadata({ [FORKS_KEY]: [] }), { expectedVersion: listed.version });
    const before = (await store.load(id)).version;
    calls.length = 0;
    expect(await manager.delete('fork-1')).toBe(true);
    expect(calls.filter((call) => call.startsWith('save'))).toEqual([]);
    expect((await store.load(id)).version).toBe(before);
  });

  it('a concurrent writer is never overwritten: the removal is replayed on its newer version', async () => {
    const inner = memoryStore();
    let armed = false;
    let interfered = false;
    const store = wrappedStore(inner, {
      save: async (session, options) => {
        // Another process writes the source between the manager's read and its write.
        if (armed && session.id === 'source' && !interfered) {
          interfered = true;
          const current = await inner.load('source');
          await inner.save(current.withMetadata({ ...current.metadata, other: 'writer' }), {
            expectedVersion: current.version,
          });
          await inner.append('source', [Message.user('from the other writer')]);
        }
        return inner.save(session, options);
      },
    });
    const manager = managerOf(store);
    const { id } = await forked(manager);
    armed = true;
    expect(await manager.delete('fork-1')).toBe(true);
    expect(interfered).toBe(true);
    const stored = await inner.load(id);
    expect(stored.metadata.other).toBe('writer');
    expect(stored.messages.map((message) => message.content)).toContain('from the other writer');
    expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(['fork-2']);
  });

  it('unsaved local changes of the source are written with the removal, never lost', async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const { id } = await forked(manager);
    await manager.update(id, (session) => session.withVariable('plan', 'B'));
    expect(manager.isDirty(id)).toBe(true);
    await manager.delete('fork-1');
    expect(manager.isDirty(id)).toBe(false);
    const stored = await store.load(id);
    expect(stored.variables).toMatchObject({ plan: 'B' });
    expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(['fork-2']);
  });

  it('a failure to update the source is retried, then reported as an error event; the fork stays deleted', async () => {
    const inner = memoryStore();
    let failing = false;
    let sourceSaves = 0;
    const store = wrappedStore(inner, {
      save: async (session, options) => {
        if (failing && session.id === 'source') {
          sourceSaves += 1;
          throw new UnavailableError('test: the store is down', { store: 'test', reason: 'CONNECTION' });
        }
        return inner.save(session, options);
      },
    });
    const manager = managerOf(store);
    const { id } = await forked(manager);
    const reported: Array<{ code: unknown; operation: string; sessionId?: string }> = [];
    manager.on('error', (error, context) =>
      reported.push({ code: (error as DataError).code, operation: context.operation, sessionId: context.sessionId }),
    );
    failing = true;
    expect(await manager.delete('fork-1')).toBe(true);
    expect(sourceSaves).toBe(RECORD_ATTEMPTS);
    expect(reported).toEqual([{ code: 'UNAVAILABLE', operation: 'unlink-fork', sessionId: id }]);
    expect(await inner.get('fork-1')).toBeUndefined();
    expect(forkLog((await inner.load(id)).metadata).map((entry) => entry.sessionId)).toEqual(['fork-1', 'fork-2']);
  });

  it("through a tenant's view: the source is found by the tenant's own id; another tenant's session is never touched", async () => {
    const raw = memoryStore();
    const manager = managerOf(tenantStore(raw, { tenant: 'acme' }));
    const { id } = await forked(manager);
    // Tenant "other" holds a session of the same id, listing a fork of the same id.
    await raw.save(
      Session.create({
        id: 'other.source',
        metadata: { [FORKS_KEY]: [{ sessionId: 'fork-1', createdAt: '2026-01-01T00:00:00.000Z' }] },
      }),
    );
    expect(await manager.delete('fork-1')).toBe(true);
    expect(forkLog((await raw.load('acme.source')).metadata).map((entry) => entry.sessionId)).toEqual(['fork-2']);
    expect((await manager.store.summary(id))?.forks).toEqual(['fork-2']);
    expect(forkLog((await raw.load('other.source')).metadata).map((entry) => entry.sessionId)).toEqual(['fork-1']);
  });
});
