/**
 * `SessionManager.runTurn`, the one place a turn ends, on real stores (memory, and a file store in
 * a temporary directory): where the turn runs, what its commit writes, compaction after the final
 * answer, continuation at the boundary, and what a failed or refused turn leaves (nothing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messageLimit } from '../compaction/message-limit.js';
import type { Compactor } from '../compaction/types.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import { fileStore } from '../stores/file/index.js';
import { memoryStore } from '../stores/memory.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';
import type { CompactedEvent } from './events.js';
import { SessionManager, type SessionManagerOptions, type TurnOutcome } from './index.js';

type Kind = 'memory' | 'file';
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh store of `kind`, removed after the test. */
function storeOf(kind: Kind): SessionStore {
  if (kind === 'memory') return memoryStore();
  const directory = mkdtempSync(path.join(tmpdir(), 'chatstate-turn-'));
  const store = fileStore(directory);
  cleanups.push(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

/** A manager over `store` (auto-save off), closed after the test. */
function managerOf(store: SessionStore, options: Partial<SessionManagerOptions> = {}): SessionManager {
  const manager = new SessionManager({ autoSaveIntervalMs: false, ...options, store });
  cleanups.push(() => manager.close());
  return manager;
}

/** The work of a plain turn: a question and its answer. */
const answer = (question: string, reply: string) => async (): Promise<TurnOutcome<string>> => ({
  value: reply,
  change: { messages: [Message.user(question), Message.assistant(reply)] },
});

const textsOf = (session: Session): string[] => session.messages.map((message) => Message.text(message));

describe.each<Kind>(['memory', 'file'])('SessionManager.runTurn on the %s store', (kind) => {
  it('creates a new session with the turn, then stores each later turn as one append at the version the work read', async () => {
    const inner = storeOf(kind);
    const writes: Array<[string, number | undefined]> = [];
    const store = wrappedStore(inner, {
      save: (session, options) => (writes.push(['save', options?.expectedVersion]), inner.save(session, options)),
      append: (id, messages, options) => (
        writes.push(['append', options?.expectedVersion]),
        inner.append(id, messages, options)
      ),
    });
    const manager = managerOf(store);
    const first = await manager.runTurn('s1', answer('q1', 'a1'), { userId: 'alice' });
    expect(first.base.version).toBe(0);
    expect(first.value).toBe('a1');
    expect(first.session.userId).toBe('alice');
    expect(writes).toEqual([['save', 0]]);
    writes.length = 0;
    let seen: Session | undefined;
    const second = await manager.runTurn('s1', async (base) => {
      seen = base;
      return {
        value: null,
        change: { messages: [Message.user('q2'), Message.assistant('a2')], variables: { mood: 'calm' } },
      };
    });
    expect(seen?.version).toBe(first.session.version);
    expect(writes).toEqual([['append', first.session.version]]);
    // The turn's messages as stored, with their sequence numbers.
    expect(second.messages.map((message) => [Message.text(message), message.seq])).toEqual([
      ['q2', 3],
      ['a2', 4],
    ]);
    expect(second.committed).toBe(second.session);
    const stored = await inner.load('s1');
    expect(textsOf(stored)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(stored.variables).toEqual({ mood: 'calm' });
    expect(stored.version).toBe(second.session.version);
  });

  it('stores nothing when the work throws, or when another writer changed the session while it ran (CONFLICT)', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store);
    await manager.runTurn('s1', answer('q1', 'a1'));
    const before = await store.load('s1');
    await expect(
      manager.runTurn('s1', async () => {
        throw new Error('model down');
      }),
    ).rejects.toThrow('model down');
    await expect(
      manager.runTurn('s1', async () => {
        await store.append('s1', [Message.user('from elsewhere')]);
        return answer('q2', 'stale answer')();
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(textsOf(await store.load('s1'))).toEqual([...textsOf(before), 'from elsewhere']);
    // The next turn reads the store again and builds on the other writer's message.
    const next = await manager.runTurn('s1', async (base) => ({
      value: textsOf(base),
      change: { messages: [Message.assistant('fresh')] },
    }));
    expect(next.value).toEqual(['q1', 'a1', 'from elsewhere']);
  });

  it('stores nothing and does not call the work for another user’s session or a chain that loops', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store);
    await manager.runTurn('mine', answer('hi', 'hello'), { userId: 'alice' });
    await store.save(Session.create({ id: 'loop-a', metadata: { continuedTo: 'loop-b' } }));
    await store.save(Session.create({ id: 'loop-b', metadata: { continuedFrom: 'loop-a', continuedTo: 'loop-a' } }));
    let calls = 0;
    const work = async (): Promise<TurnOutcome<null>> => {
      calls++;
      return { value: null, change: { messages: [Message.user('intruder')] } };
    };
    await expect(manager.runTurn('mine', work, { userId: 'mallory' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(manager.runTurn('loop-a', work)).rejects.toMatchObject({ code: 'CORRUPT' });
    expect(calls).toBe(0);
    expect(textsOf(await store.load('mine'))).toEqual(['hi', 'hello']);
  });

  it('runs a turn on a continued session at the end of its chain, and lets the work look into the session it continues', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store);
    await manager.runTurn('root', answer('q1', 'a1'));
    const successor = await manager.continueSession('root');
    const end = await manager.runTurn('root', async (base, context) => ({
      value: { base: base.id, predecessor: (await context.predecessor())?.id },
      change: { messages: [Message.user('q2'), Message.assistant('a2')] },
    }));
    expect(end.value).toEqual({ base: successor.id, predecessor: 'root' });
    expect(end.continuedFrom).toBe('root');
    expect(end.session.id).toBe(successor.id);
    expect(textsOf(await store.load(successor.id)).slice(-2)).toEqual(['q2', 'a2']);
    expect(textsOf(await store.load('root'))).toEqual(['q1', 'a1']);
    // A work that answers from the store (a retry) stores nothing.
    const retried = await manager.runTurn('root', async (base) => ({ value: base.version }));
    expect(retried.session).toBe(retried.base);
    expect(retried.messages).toEqual([]);
    expect((await store.load(successor.id)).version).toBe(retried.value);
  });

  it('compacts after a final answer only, with the manager’s compactor, and stores the compaction at the committed version', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store, { compactor: messageLimit({ maxMessages: 2 }) });
    const events: CompactedEvent[] = [];
    manager.on('compacted', (event) => events.push(event));
    await manager.runTurn('s1', answer('q0', 'a0'));
    const call = Message.assistant('', { toolCalls: [{ id: 'c1', name: 'look', arguments: {} }] });
    // Over the limit, but a turn ending in a tool call is no final answer: nothing is compacted.
    const open = await manager.runTurn('s1', async () => ({
      value: null,
      change: { messages: [Message.user('q1'), call] },
    }));
    expect(open.compaction).toBeUndefined();
    expect(textsOf(await store.load('s1'))).toEqual(['q0', 'a0', 'q1', '']);
    const end = await manager.runTurn('s1', async () => ({
      value: null,
      change: { messages: [Message.tool('c1', 'found'), Message.assistant('a1')] },
    }));
    expect(end.compaction?.compacted).toBe(true);
    expect(end.committed.messages).toHaveLength(6);
    expect(end.session.version).toBe(end.committed.version + 1);
    expect(end.messages.map((message) => Message.text(message))).toEqual(['found', 'a1']);
    // The older turn is gone from the store; the newest turn stays whole.
    const stored = await store.load('s1');
    expect(textsOf(stored)).toEqual(['q1', '', 'found', 'a1']);
    expect(stored.messages.map((message) => message.id)).toEqual(end.session.messages.map((message) => message.id));
    expect(events.map((event) => event.sessionId)).toEqual(['s1']);
  });

  it('reports a compactor that fails and keeps the turn as committed; an explicit compactor replaces the manager’s', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store, { compactor: messageLimit({ maxMessages: 1 }) });
    const broken: Compactor = {
      name: 'broken',
      shouldCompact: () => true,
      compact: () => {
        throw new Error('compactor bug');
      },
    };
    const end = await manager.runTurn('s1', answer('q1', 'a1'), { compactor: broken });
    expect(end.compaction).toMatchObject({ compacted: false, strategy: 'broken', error: { code: 'INTERNAL' } });
    expect(end.session).toBe(end.committed);
    expect(textsOf(await store.load('s1'))).toEqual(['q1', 'a1']);
  });

  it('with continueAtBoundary, continues a session the turn filled, after storing the turn', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store, { maxMessagesPerSession: 4 });
    const first = await manager.runTurn('s1', answer('q1', 'a1'), { continueAtBoundary: true });
    expect(first.continuedTo).toBeUndefined();
    // Full now, but not asked to continue: the turn stays where it is.
    const full = await manager.runTurn('s1', answer('q2', 'a2'));
    expect(full.continuedTo).toBeUndefined();
    const over = await manager.runTurn('s1', answer('q3', 'a3'), { continueAtBoundary: true });
    expect(over.session.id).toBe('s1');
    expect(textsOf(over.session)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
    const successor = over.continuedTo as string;
    expect((await store.load('s1')).metadata.continuedTo).toBe(successor);
    const next = await manager.runTurn('s1', answer('q4', 'a4'), { continueAtBoundary: true });
    expect(next.session.id).toBe(successor);
    expect(next.continuedFrom).toBe('s1');
    expect(textsOf(await store.load(successor)).slice(-2)).toEqual(['q4', 'a4']);
  });

  it('runs turns of one id one after another: the second works on the first’s commit', async () => {
    const store = storeOf(kind);
    const manager = managerOf(store);
    const work =
      (reply: string) =>
      async (base: Session): Promise<TurnOutcome<number>> => ({
        value: base.messages.length,
        change: { messages: [Message.user(`q ${reply}`), Message.assistant(reply)] },
      });
    const [one, two] = await Promise.all([manager.runTurn('s1', work('one')), manager.runTurn('s1', work('two'))]);
    expect([one.value, two.value]).toEqual([0, 2]);
    expect(textsOf(await store.load('s1'))).toEqual(['q one', 'one', 'q two', 'two']);
  });
});

describe('SessionManager.runTurn input', () => {
  it('refuses bad arguments with typed errors, storing nothing', async () => {
    const store = memoryStore();
    const manager = managerOf(store);
    const work = answer('q', 'a');
    await expect(manager.runTurn('../etc', work)).rejects.toMatchObject({ code: 'INVALID_ID' });
    await expect(manager.runTurn('s1', 'work' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const badOptions: unknown[] = [
      null,
      { userId: '' },
      { userId: 7 },
      { compactor: {} },
      { counter: { name: 'no methods' } },
      { signal: 'stop' },
      { continueAtBoundary: 'yes' },
    ];
    for (const options of badOptions)
      await expect(manager.runTurn('s1', work, options as never), JSON.stringify(options)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    await expect(manager.runTurn('s1', async () => 'not an outcome' as never)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      manager.runTurn('s1', async () => ({ value: 1, change: { messages: 'hi' } as never })),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      manager.runTurn('s1', async () => ({ value: 1, change: { messages: [{ role: 'user' } as never] } })),
    ).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
    expect(await store.get('s1')).toBeUndefined();
  });
});
