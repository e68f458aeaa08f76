/**
 * The memory store against the conformance suite. `memoryStore(options)` is
 * `createSessionStore(memoryDriver(), options)`; the suite builds it from those two parts so that
 * `reopen` can put a second store (other keys) over the same driver.
 */
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { createSessionStore } from '../../src/store/session-store.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryDriver, memoryStore } from '../../src/stores/memory.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { describe, expect, it } from 'vitest';

const drivers = new WeakMap<SessionStore, StoreDriver>();

runStoreConformance({
  name: 'memory',
  async create(options) {
    const driver = memoryDriver();
    const store = createSessionStore(driver, options);
    drivers.set(store, driver);
    return store;
  },
  async reopen(store, options) {
    const driver = drivers.get(store);
    if (driver === undefined) throw new Error('reopen: not a store of this suite');
    const second = createSessionStore(driver, options);
    drivers.set(second, driver);
    return second;
  },
  skip: { 'cross-process': 'the memory store lives in one process' },
  capabilities: { changeFeed: 'all' },
});

describe('memoryStore', () => {
  it('is the core store over a memory driver, named "memory"', async () => {
    const store = memoryStore();
    expect(store.name).toBe('memory');
    expect(await store.list()).toEqual([]);
    await store.close();
  });

  it('keeps the messages its records stand for: loads return them without parsing again, and a store with other keys reads the records itself', async () => {
    const driver = memoryDriver();
    const store = createSessionStore(driver, { encryption: { current: 'k1', keys: { k1: Buffer.alloc(32, 1) } } });
    const saved = await store.save(
      Session.create({ id: 's', messages: [Message.user('hello'), Message.assistant('hi')] }),
    );
    const { appended } = await store.append('s', [Message.user('again')]);
    const loaded = await store.load('s');
    expect(loaded.messages.slice(0, 2)).toEqual(saved.messages);
    for (let i = 0; i < 2; i++) expect(loaded.messages[i]).toBe(saved.messages[i]);
    expect(loaded.messages[2]).toBe(appended[0]);
    expect((await store.readMessages('s', { limit: 1 }))[0]).toBe(appended[0]);
    // Another store over the same records, with a different key, decodes nothing: its key check refuses it.
    const other = createSessionStore(driver, { encryption: { current: 'k1', keys: { k1: Buffer.alloc(32, 2) } } });
    await expect(other.load('s')).rejects.toMatchObject({ code: 'WRONG_KEY' });
    // One with the right key decodes equal messages (new objects).
    const same = createSessionStore(driver, { encryption: { current: 'k1', keys: { k1: Buffer.alloc(32, 1) } } });
    const decoded = await same.load('s');
    expect(decoded.messages).toEqual(loaded.messages);
    expect(decoded.messages[0]).not.toBe(loaded.messages[0]);
    await store.close();
  });
});

describe('memoryStore: name', () => {
  it('takes a name option, used by store.name and its errors; an empty one is INVALID_ARGUMENT', async () => {
    const store = memoryStore({ name: 'scratch' });
    expect(store.name).toBe('scratch');
    await expect(store.append('missing', [Message.user('x')])).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'scratch: no session "missing"',
    });
    await store.save(Session.create({ id: 's' }));
    await expect(store.save(Session.create({ id: 's' }), { expectedVersion: 7 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/^scratch: /),
    });
    await store.close();
    await expect(store.list()).rejects.toMatchObject({ code: 'CLOSED', message: 'scratch: the store is closed' });
    expect(() => memoryStore({ name: '' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => memoryDriver({ name: 42 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
