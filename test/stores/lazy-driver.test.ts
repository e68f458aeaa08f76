import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { FILE_DRIVER_SHAPE } from '../../src/stores/file/options.js';
import { fileDriver } from '../../src/stores/file/driver.js';
import { memoryDriver } from '../../src/stores/memory-driver.js';
import { MEMORY_DRIVER_SHAPE } from '../../src/stores/memory-store.js';
import { lazyDriver } from '../../src/store/lazy-driver.js';
import { createSessionStore } from '../../src/store/session-store.js';
import type { AnyStoreDriver } from '../../src/store/driver-types.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A loader of a real memory driver that counts its calls and can be told to fail. */
function countingLoader(failures = 0) {
  const state = { calls: 0 };
  const load = async (): Promise<AnyStoreDriver> => {
    state.calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (state.calls <= failures) throw new Error(`module not found (attempt ${state.calls})`);
    return memoryDriver({ name: 'lazy' });
  };
  return { state, load };
}

describe('lazyDriver', () => {
  it('loads its driver on the first operation, once for concurrent ones', async () => {
    const { state, load } = countingLoader();
    const store = createSessionStore(lazyDriver({ name: 'lazy', ...MEMORY_DRIVER_SHAPE }, load));
    expect(state.calls).toBe(0);
    const session = Session.create({ id: 's1' }).append(Message.user('hello'));
    await Promise.all([store.save(session), store.get('other'), store.list()]);
    expect(state.calls).toBe(1);
    expect((await store.load('s1')).messages.map((message) => message.content)).toEqual(['hello']);
    expect(state.calls).toBe(1);
    await store.close();
  });

  it('never loads a driver that was closed before its first operation', async () => {
    const { state, load } = countingLoader();
    const store = createSessionStore(lazyDriver({ name: 'lazy', ...MEMORY_DRIVER_SHAPE }, load));
    await store.close();
    expect(state.calls).toBe(0);
    await expect(store.get('s1')).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('passes a failed load to the caller and tries again on the next operation', async () => {
    const { state, load } = countingLoader(1);
    const store = createSessionStore(lazyDriver({ name: 'lazy', ...MEMORY_DRIVER_SHAPE }, load));
    await expect(store.get('s1')).rejects.toThrow('module not found (attempt 1)');
    await expect(store.get('s1')).resolves.toBeUndefined();
    expect(state.calls).toBe(2);
  });

  it('refuses a loaded driver that is not the one its shape described', async () => {
    const wrongName = createSessionStore(lazyDriver({ name: 'other', ...MEMORY_DRIVER_SHAPE }, countingLoader().load));
    await expect(wrongName.get('s1')).rejects.toMatchObject({ code: 'INTERNAL' });
    const fewer = createSessionStore(
      lazyDriver(
        { name: 'lazy', capabilities: MEMORY_DRIVER_SHAPE.capabilities, implements: ['purge'] },
        countingLoader().load,
      ),
    );
    await expect(fewer.get('s1')).rejects.toMatchObject({ code: 'INTERNAL' });
    const flags = createSessionStore(
      lazyDriver(
        { name: 'lazy', capabilities: { expiryInCommit: true }, implements: MEMORY_DRIVER_SHAPE.implements },
        countingLoader().load,
      ),
    );
    await expect(flags.get('s1')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('calls a driver written as a class with itself as this', async () => {
    class Wrapped {
      readonly name = 'lazy';
      readonly capabilities = MEMORY_DRIVER_SHAPE.capabilities;
      private readonly inner = memoryDriver({ name: 'lazy' });
      readHead(id: string) {
        return this.inner.readHead(id);
      }
      readAll(id: string) {
        return this.inner.readAll(id);
      }
      readRange(...args: Parameters<AnyStoreDriver['readRange']>) {
        return this.inner.readRange(...args);
      }
      append(...args: Parameters<AnyStoreDriver['append']>) {
        return this.inner.append(...args);
      }
      replace(...args: Parameters<AnyStoreDriver['replace']>) {
        return this.inner.replace(...args);
      }
      list(...args: Parameters<AnyStoreDriver['list']>) {
        return this.inner.list(...args);
      }
      remove(id: string) {
        return this.inner.remove(id);
      }
      purgeExpired(now: number) {
        return this.inner.purgeExpired(now);
      }
      forgetUser(...args: Parameters<NonNullable<AnyStoreDriver['forgetUser']>>) {
        return this.inner.forgetUser(...args);
      }
      readValues(...args: Parameters<NonNullable<AnyStoreDriver['readValues']>>) {
        return this.inner.readValues(...args);
      }
      writeValues(...args: Parameters<NonNullable<AnyStoreDriver['writeValues']>>) {
        return this.inner.writeValues(...args);
      }
      replaceTail(...args: Parameters<NonNullable<AnyStoreDriver['replaceTail']>>) {
        return (this.inner.replaceTail as NonNullable<AnyStoreDriver['replaceTail']>)(...args);
      }
      listMarks(...args: Parameters<NonNullable<AnyStoreDriver['listMarks']>>) {
        return (this.inner.listMarks as NonNullable<AnyStoreDriver['listMarks']>)(...args);
      }
      readRecordsAt(...args: Parameters<NonNullable<AnyStoreDriver['readRecordsAt']>>) {
        return (this.inner.readRecordsAt as NonNullable<AnyStoreDriver['readRecordsAt']>)(...args);
      }
      watchChanges(...args: Parameters<NonNullable<AnyStoreDriver['watchChanges']>>) {
        return (this.inner.watchChanges as NonNullable<AnyStoreDriver['watchChanges']>)(...args);
      }
      close() {
        return this.inner.close();
      }
    }
    const store = createSessionStore(lazyDriver({ name: 'lazy', ...MEMORY_DRIVER_SHAPE }, async () => new Wrapped()));
    await store.save(Session.create({ id: 'c1' }).append(Message.user('hello')));
    expect((await store.load('c1')).messages).toHaveLength(1);
    await store.close();
  });

  it('describes the built-in drivers as they are', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'chatstate-lazy-'));
    dirs.push(dir);
    for (const [driver, shape] of [
      [memoryDriver(), MEMORY_DRIVER_SHAPE],
      [fileDriver(dir), FILE_DRIVER_SHAPE],
    ] as const) {
      expect(driver.capabilities).toEqual(shape.capabilities);
      const methods = Object.keys(driver).filter(
        (key) => typeof (driver as unknown as Record<string, unknown>)[key] === 'function',
      );
      expect(methods.includes('purgeExpired')).toBe(shape.implements.includes('purge'));
      expect(methods.includes('readValues')).toBe((shape.implements as readonly string[]).includes('values'));
      expect(methods.includes('searchText')).toBe(false);
      await driver.close();
    }
  });
});
