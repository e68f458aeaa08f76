/**
 * The core's change feed over a driver whose feed the test drives (the memory driver with its own
 * `watchChanges` replaced): the watch starts at the first subscriber and stops after the last,
 * an outage is told once and its end as a reset, an echo of the store's own change is told once
 * (whichever side comes first), a driver that breaks its promise is reported, never thrown.
 */
import { describe, expect, it } from 'vitest';
import { ChatstateError, UnavailableError } from '../errors.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryDriver } from '../stores/memory.js';
import type { ChangeEvent, DriverChangeSink } from './change-types.js';
import { createSessionStore } from './session-store.js';

/** A memory driver whose change feed is played by the test. */
function drivenFeed(options: { failWatch?: boolean } = {}) {
  const state = { starts: 0, stops: 0, sink: undefined as DriverChangeSink | undefined };
  const driver = {
    ...memoryDriver(),
    async watchChanges(sink: DriverChangeSink) {
      state.starts += 1;
      if (options.failWatch === true) throw new Error('the driver broke its promise');
      state.sink = sink;
      return async () => {
        state.stops += 1;
        state.sink = undefined;
      };
    },
  };
  const sink = (): DriverChangeSink => {
    if (state.sink === undefined) throw new Error('not watching');
    return state.sink;
  };
  return { store: createSessionStore(driver), state, sink };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CoreChangeFeed', () => {
  it('starts the driver at the first subscriber, stops it after the last, starts again for a new one', async () => {
    const { store, state } = drivenFeed();
    const feed = store.changes;
    expect(feed?.coverage).toBe('all');
    expect(feed?.state).toBe('connecting');
    const stopA = feed?.subscribe(() => undefined);
    const stopB = feed?.subscribe(() => undefined);
    await settle();
    expect(state.starts).toBe(1);
    stopA?.();
    stopA?.();
    await settle();
    expect(state.stops).toBe(0);
    stopB?.();
    await settle();
    expect(state.stops).toBe(1);
    feed?.subscribe(() => undefined);
    await settle();
    expect(state.starts).toBe(2);
    await store.close();
    expect(state.stops).toBe(2);
  });

  it('tells an outage once, and its end as a reset; a first connection is no gap', async () => {
    const { store, sink } = drivenFeed();
    const events: ChangeEvent[] = [];
    store.changes?.subscribe((event) => events.push(event));
    await settle();
    sink().live(false);
    expect(store.changes?.state).toBe('live');
    const error = new UnavailableError('down', { store: 'memory', reason: 'CONNECTION' });
    sink().interrupted(error);
    sink().interrupted(error);
    expect(store.changes?.state).toBe('interrupted');
    sink().live(true);
    expect(events).toEqual([
      { type: 'interrupted', error },
      { type: 'reset', reason: 'reconnected' },
    ]);
    await store.close();
  });

  it("tells the store's own change once, whether its echo comes after it or before it", async () => {
    const { store, sink } = drivenFeed();
    const events: ChangeEvent[] = [];
    store.changes?.subscribe((event) => events.push(event));
    await settle();
    sink().live(false);
    const saved = await store.save(Session.create({ id: 's1', userId: 'u' }));
    // The echo of the save, after it.
    sink().change({ kind: 'replace', id: 's1', version: saved.version, userId: 'u' });
    // The echo of the next append, before the append's own reply (a notification can be faster).
    sink().change({ kind: 'append', id: 's1', version: saved.version + 1 });
    await store.append('s1', [Message.user('hi', { id: 'hi' })]);
    // Another writer's change is told.
    sink().change({ kind: 'append', id: 's1', version: saved.version + 2 });
    expect(events.map((event) => (event.type === 'change' ? `${event.kind} ${event.version}` : event.type))).toEqual([
      `replace ${saved.version}`,
      `append ${saved.version + 1}`,
      `append ${saved.version + 2}`,
    ]);
    await store.close();
  });

  it('a driver whose watch rejects is reported as interrupted, never thrown', async () => {
    const { store } = drivenFeed({ failWatch: true });
    const events: ChangeEvent[] = [];
    store.changes?.subscribe((event) => events.push(event));
    await settle();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.type).toBe('interrupted');
    expect(event?.type === 'interrupted' && ChatstateError.hasCode(event.error, 'INTERNAL')).toBe(true);
    expect(store.changes?.state).toBe('interrupted');
    await store.close();
  });

  it('a store without a driver feed tells only its own writes, always live', async () => {
    const { watchChanges: _unused, ...plain } = memoryDriver();
    const store = createSessionStore(plain);
    expect(store.changes?.coverage).toBe('this-store');
    expect(store.changes?.state).toBe('live');
    const events: ChangeEvent[] = [];
    store.changes?.subscribe((event) => events.push(event));
    await store.save(Session.create({ id: 'x' }));
    expect(events).toEqual([{ type: 'change', kind: 'replace', id: 'x', version: 1 }]);
    await store.close();
  });
});
