import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryStore } from '../stores/memory.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { ManagerErrorContext, SavedEvent } from './events.js';
import { setup } from '../../test/support/managers.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';

/** `inner` with a disk that is full while `failing()`: its saves reject, everything else works. */
function failingSaves(inner: SessionStore, failing: () => boolean): SessionStore {
  return wrappedStore(inner, {
    name: 'flaky',
    save: (session, options) => (failing() ? Promise.reject(new Error('disk full')) : inner.save(session, options)),
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LRU cache', () => {
  it('keeps the most recently used sessions', async () => {
    const { manager } = setup({ maxSessionsInMemory: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await manager.create({ id: `s${i}` })).id);
    expect(manager.cachedIds).toEqual(['s2', 's3', 's4']);
    await manager.load('s2');
    await manager.create({ id: 's5' });
    expect(manager.cachedIds).toEqual(['s4', 's2', 's5']);
  });

  it('an evicted dirty session is saved first: nothing is lost', async () => {
    const { store, manager } = setup({ maxSessionsInMemory: 2 });
    const saved: SavedEvent[] = [];
    manager.on('saved', (event) => saved.push(event));
    await manager.create({ id: 'a' });
    await manager.update('a', (session) => session.withVariable('note', 'unsaved'));
    await manager.create({ id: 'b' });
    expect((await store.load('a')).variables.note).toBeUndefined();
    await manager.create({ id: 'c' });
    expect(manager.cachedIds).toEqual(['b', 'c']);
    expect((await store.load('a')).variables.note).toBe('unsaved');
    expect(saved.filter((event) => event.reason === 'evict').map((event) => event.session.id)).toEqual(['a']);
    // Loaded again, it comes from the store with the change.
    expect((await manager.load('a')).variables.note).toBe('unsaved');
  });

  it('a dirty session whose save fails stays cached (over the limit) and the failure is an error event', async () => {
    const { store, manager } = setup({ maxSessionsInMemory: 1 });
    const errors: Array<[string | undefined, ManagerErrorContext]> = [];
    manager.on('error', (error, context) => errors.push([(error as { code?: string }).code, context]));
    await manager.create({ id: 'doomed' });
    await manager.update('doomed', (session) => session.withVariable('x', 1));
    // Another writer deletes it: the save cannot land, and resurrecting a deleted session would be wrong.
    await store.delete('doomed');
    await manager.create({ id: 'next' });
    expect(errors).toEqual([['NOT_FOUND', { operation: 'evict', sessionId: 'doomed' }]]);
    expect(manager.cachedIds).toEqual(['next']);
  });

  it('a session stays cached while its own operation runs, even at a limit of one', async () => {
    const { store, manager } = setup({ maxSessionsInMemory: 1 });
    await Promise.all(['p', 'q', 'r'].map((id) => manager.create({ id })));
    await Promise.all(['p', 'q', 'r'].map((id) => manager.append(id, Message.user(`to ${id}`))));
    for (const id of ['p', 'q', 'r']) expect((await store.load(id)).messages).toHaveLength(1);
    expect(manager.cachedIds).toHaveLength(1);
  });
});

describe('flush and close', () => {
  it('flush saves every dirty session, close saves what changed after it', async () => {
    const { store, manager } = setup();
    const ids = await Promise.all([0, 1, 2, 3].map(async (i) => (await manager.create({ id: `f${i}` })).id));
    for (const id of ids) await manager.update(id, (session) => session.withVariable('n', id));
    await manager.flush();
    for (const id of ids) expect((await store.load(id)).variables.n).toBe(id);
    await manager.update('f0', (session) => session.withVariable('late', true));
    await manager.close();
    expect((await store.load('f0')).variables.late).toBe(true);
  });

  it('close waits for operations already started', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    const pending = [
      manager.append(id, Message.user('one')),
      manager.update(id, (session) => session.withVariable('v', 1)),
    ];
    await manager.close();
    await Promise.all(pending);
    const stored = await store.load(id);
    expect(stored.messages).toHaveLength(1);
    expect(stored.variables.v).toBe(1);
  });

  it('after close every operation is refused, and the store stays open unless owned', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.close();
    await manager.close();
    const closed = { code: 'CLOSED', message: 'SessionManager: the manager is closed' };
    await expect(manager.load(id)).rejects.toMatchObject(closed);
    await expect(manager.append(id, Message.user('late'))).rejects.toMatchObject(closed);
    await expect(
      manager.runTurn(id, async () => ({ value: 'late', change: { messages: [Message.user('late')] } })),
    ).rejects.toMatchObject(closed);
    expect((await store.load(id)).id).toBe(id);
  });

  it('close closes an owned store', async () => {
    const { store, manager } = setup({ ownsStore: true });
    await manager.create({ id: 'owned' });
    await manager.close();
    await expect(store.load('owned')).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('a close whose flush fails throws, keeps the changes, and can be retried', async () => {
    const inner = memoryStore();
    let broken = true;
    const store = failingSaves(inner, () => broken);
    await inner.save(Session.create({ id: 'kept' }));
    const { manager } = setup({ store });
    await manager.update('kept', (session) => session.withVariable('precious', 1));
    await expect(manager.close()).rejects.toThrow('disk full');
    broken = false;
    await manager.close();
    expect((await inner.load('kept')).variables.precious).toBe(1);
  });

  it('flush reports several failures together after trying every session', async () => {
    const { store, manager } = setup();
    for (const id of ['x1', 'x2', 'x3']) {
      await manager.create({ id });
      await manager.update(id, (session) => session.withVariable('v', id));
    }
    await store.delete('x1');
    await store.delete('x2');
    const failure = await manager.flush().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((error: { code?: string }) => error.code)).toEqual([
      'NOT_FOUND',
      'NOT_FOUND',
    ]);
    expect((await store.load('x3')).variables.v).toBe('x3');
  });
});

describe('auto-save', () => {
  it('saves dirty sessions on the interval', async () => {
    vi.useFakeTimers();
    const { store, manager } = setup({ autoSaveIntervalMs: 1000 });
    const saved: SavedEvent[] = [];
    manager.on('saved', (event) => saved.push(event));
    const { id } = await manager.create();
    await manager.update(id, (session) => session.withVariable('tick', 1));
    await vi.advanceTimersByTimeAsync(999);
    expect((await store.load(id)).variables.tick).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect((await store.load(id)).variables.tick).toBe(1);
    expect(manager.isDirty(id)).toBe(false);
    expect(saved.filter((event) => event.reason === 'auto-save')).toHaveLength(1);
    // Nothing dirty: the next tick writes nothing.
    await vi.advanceTimersByTimeAsync(1000);
    expect(saved.filter((event) => event.reason === 'auto-save')).toHaveLength(1);
  });

  it('a failed auto-save is an error event and is retried on the next tick', async () => {
    vi.useFakeTimers();
    const inner = memoryStore();
    let failures = 1;
    const store = failingSaves(inner, () => failures-- > 0);
    await inner.save(Session.create({ id: 'auto' }));
    const { manager } = setup({ store, autoSaveIntervalMs: 500 });
    const errors: Array<[string, ManagerErrorContext]> = [];
    manager.on('error', (error, context) => errors.push([error.message, context]));
    await manager.update('auto', (session) => session.withVariable('v', 1));
    await vi.advanceTimersByTimeAsync(500);
    expect(errors).toEqual([['disk full', { operation: 'auto-save', sessionId: 'auto' }]]);
    expect(manager.isDirty('auto')).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect((await inner.load('auto')).variables.v).toBe(1);
  });

  it('without an error listener a background failure is a process warning, not a crash', async () => {
    const { store, manager } = setup({ maxSessionsInMemory: 1 });
    // Caught here, so that the expected warning is checked instead of printed by the test run.
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    let calls: unknown[][];
    try {
      await manager.create({ id: 'w1' });
      await manager.update('w1', (session) => session.withVariable('x', 1));
      await store.delete('w1');
      await manager.create({ id: 'w2' });
    } finally {
      calls = [...emitWarning.mock.calls];
      emitWarning.mockRestore();
    }
    expect(calls).toEqual([
      ['SessionManager: evict of w1 failed: memory: no session "w1"', { code: 'CHATSTATE_MANAGER' }],
    ]);
    expect(manager.cachedIds).toEqual(['w2']);
  });

  it('the timer does not keep a process alive', () => {
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    const stores = fileURLToPath(new URL('../stores/memory.ts', import.meta.url));
    const script = `
      const { SessionManager } = await import(${JSON.stringify(entry)});
      const { memoryStore } = await import(${JSON.stringify(stores)});
      const manager = new SessionManager({ store: memoryStore(), autoSaveIntervalMs: 3_600_000 });
      await manager.create({ id: 'alive' });
      console.log('created');`;
    // Without unref the child would wait an hour for its interval; the spawn timeout turns that into a failure.
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('created');
    expect(child.status).toBe(0);
  });
});
