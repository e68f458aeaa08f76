import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryStore } from '../stores/memory.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { ManagerErrorContext } from './events.js';
import { SessionManager } from './index.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';

const managers: SessionManager[] = [];

function manager(store: SessionStore): SessionManager {
  const created = new SessionManager({ store, autoSaveIntervalMs: false });
  managers.push(created);
  return created;
}

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((each) => each.close()));
});

/**
 * `inner` as seen by a process that loses every race: right after each of its reloads, another
 * writer appends to the session, so its retry meets a newer version again.
 */
function alwaysOvertaken(inner: SessionStore): SessionStore {
  let round = 0;
  return wrappedStore(inner, {
    name: 'overtaken',
    load: async (id) => {
      const session = await inner.load(id);
      round += 1;
      await inner.append(id, [Message.user(`other writer ${round}`)]);
      return session;
    },
  });
}

describe('CONFLICT between two writers', () => {
  it('an append after another writer appended reloads, retries once, and both messages land', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const bob = manager(store);
    const { id } = await alice.create();
    await bob.load(id);
    await alice.append(id, Message.user('from alice'));
    const result = await bob.append(id, Message.user('from bob'));
    const stored = await store.load(id);
    expect(stored.messages.map((message) => message.content)).toEqual(['from alice', 'from bob']);
    // Bob's copy now holds what the other writer stored too.
    expect(result.session.messages.map((message) => message.content)).toEqual(['from alice', 'from bob']);
    expect(result.session.version).toBe(stored.version);
    await bob.append(id, Message.user('bob again'));
    expect((await store.load(id)).messages).toHaveLength(3);
  });

  it('local changes are replayed on the newer copy: a save never overwrites another writer', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const bob = manager(store);
    const { id } = await alice.create();
    await bob.update(id, (session) => session.withVariable('bob', 'was here'));
    await alice.append(id, Message.user('alice speaks'));
    await alice.update(id, (session) => session.withVariable('alice', 'too'));
    await alice.flush();
    await bob.flush();
    const stored = await store.load(id);
    expect(stored.messages.map((message) => message.content)).toEqual(['alice speaks']);
    expect(stored.variables).toEqual({ alice: 'too', bob: 'was here' });
    expect((await bob.load(id)).variables).toEqual(stored.variables);
  });

  it('an append to a dirty session that meets a CONFLICT keeps the local change', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const bob = manager(store);
    const { id } = await alice.create();
    await bob.update(id, (session) => session.withVariable('draft', 1));
    await alice.append(id, Message.user('first'));
    await bob.append(id, Message.user('second'));
    expect(bob.isDirty(id)).toBe(true);
    await bob.flush();
    const stored = await store.load(id);
    expect(stored.messages.map((message) => message.content)).toEqual(['first', 'second']);
    expect(stored.variables.draft).toBe(1);
  });

  it('a writer that loses every race still lands its append, once', async () => {
    const inner = memoryStore();
    const { id } = await inner.save(Session.create());
    const loser = manager(alwaysOvertaken(inner));
    await loser.load(id);
    await inner.append(id, [Message.user('first other writer')]);
    const attempt = Message.user('lands anyway');
    const result = await loser.append(id, attempt);
    expect(result.appended.map((message) => message.id)).toEqual([attempt.id]);
    expect(result.session.messages.map((message) => message.id)).toContain(attempt.id);
    const stored = await inner.load(id);
    expect(stored.messages.filter((message) => message.id === attempt.id)).toHaveLength(1);
  });

  it('a save that keeps losing to other writers gives up with CONFLICT and keeps its change', async () => {
    const inner = memoryStore();
    const { id } = await inner.save(Session.create());
    const loser = manager(alwaysOvertaken(inner));
    await loser.update(id, (session) => session.withVariable('mine', true));
    await expect(loser.flush()).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(loser.isDirty(id)).toBe(true);
    expect((await inner.load(id)).variables.mine).toBeUndefined();
    expect((await loser.load(id)).variables.mine).toBe(true);
  });

  it('a local change that no longer applies after a CONFLICT is dropped with CONFLICT, keeping the stored copy', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const bob = manager(store);
    const { id } = await alice.create();
    // Bob's change only makes sense once: it refuses a session that already has a title.
    await bob.update(id, (session) => {
      if (session.metadata.title !== undefined) throw new Error('already titled');
      return session.withMetadata({ title: 'by bob' });
    });
    await alice.update(id, (session) => session.withMetadata({ title: 'by alice' }));
    await alice.flush();
    await expect(bob.flush()).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(bob.isDirty(id)).toBe(false);
    expect((await bob.load(id)).metadata.title).toBe('by alice');
    expect((await store.load(id)).metadata.title).toBe('by alice');
  });

  it('the append of a dirty session still lands when its local change no longer applies; the drop is an error event', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const bob = manager(store);
    const errors: ManagerErrorContext[] = [];
    bob.on('error', (_error, context) => errors.push(context));
    const { id } = await alice.create();
    await bob.update(id, (session) => {
      if (session.messages.length > 0) throw new Error('only on an empty session');
      return session.withVariable('greeting', 'pending');
    });
    await alice.append(id, Message.user('alice first'));
    const result = await bob.append(id, Message.user('bob second'));
    expect(result.session.messages.map((message) => message.content)).toEqual(['alice first', 'bob second']);
    expect(errors).toEqual([{ operation: 'rebase', sessionId: id }]);
    expect(bob.isDirty(id)).toBe(false);
    expect((await store.load(id)).messages).toHaveLength(2);
  });

  it('a session deleted by another writer leaves the cache when an append finds it gone', async () => {
    const store = memoryStore();
    const alice = manager(store);
    const { id } = await alice.create();
    await store.delete(id);
    await expect(alice.append(id, Message.user('too late'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(alice.cachedIds).not.toContain(id);
  });
});

describe('two managers writing at once never lose a message or a change', () => {
  type Command =
    | { kind: 'append'; who: number; session: number }
    | { kind: 'update'; who: number; session: number }
    | { kind: 'flush'; who: number }
    | { kind: 'load'; who: number; session: number };
  const who = fc.integer({ min: 0, max: 1 });
  const session = fc.integer({ min: 0, max: 2 });
  const command: fc.Arbitrary<Command> = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), who, session }),
    fc.record({ kind: fc.constant('update' as const), who, session }),
    fc.record({ kind: fc.constant('flush' as const), who }),
    fc.record({ kind: fc.constant('load' as const), who, session }),
  );

  it('every acknowledged append is stored once and every update survives, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(command, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 3 }),
        async (batches, cacheSize) => {
          const store = memoryStore();
          const writers = [0, 1].map(
            () => new SessionManager({ store, autoSaveIntervalMs: false, maxSessionsInMemory: cacheSize }),
          );
          // Evicting a dirty session may lose a race too: it then stays cached, and the failure is reported.
          const background: Array<string | undefined> = [];
          for (const writer of writers)
            writer.on('error', (error) => background.push((error as { code?: string }).code));
          const ids = ['p0', 'p1', 'p2'];
          for (const id of ids) await store.save(Session.create({ id }));
          const appended = new Map<string, string[]>(ids.map((id) => [id, []]));
          const variables = new Map<string, string[]>(ids.map((id) => [id, []]));
          let counter = 0;
          const run = async (step: Command): Promise<void> => {
            const writer = writers[step.who] as SessionManager;
            counter += 1;
            switch (step.kind) {
              case 'append': {
                const id = ids[step.session] as string;
                const message = Message.user(`m${counter}`);
                await writer.append(id, message);
                appended.get(id)?.push(message.id);
                return;
              }
              case 'update': {
                const id = ids[step.session] as string;
                const key = `v${counter}`;
                await writer.update(id, (current) => current.withVariable(key, step.who));
                variables.get(id)?.push(key);
                return;
              }
              case 'flush':
                // A save racing the other writer may give up with CONFLICT; its changes stay local (checked at the end).
                await writer.flush().catch((error: unknown) => {
                  const codes =
                    error instanceof AggregateError
                      ? error.errors.map((each: { code?: string }) => each.code)
                      : [(error as { code?: string }).code];
                  if (codes.some((code) => code !== 'CONFLICT')) throw error;
                });
                return;
              case 'load':
                await writer.load(ids[step.session] as string);
                return;
              default:
                step satisfies never;
            }
          };
          // Commands of one batch run concurrently: the two writers race on the same sessions.
          for (const batch of batches) await Promise.all(batch.map(run));
          for (const writer of writers) await writer.close();
          expect(background.filter((code) => code !== 'CONFLICT')).toEqual([]);
          for (const id of ids) {
            const stored = await store.load(id);
            const storedIds = stored.messages.map((message) => message.id);
            expect(new Set(storedIds).size).toBe(storedIds.length);
            expect(storedIds.sort()).toEqual([...(appended.get(id) ?? [])].sort());
            expect(Object.keys(stored.variables).sort()).toEqual([...(variables.get(id) ?? [])].sort());
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
