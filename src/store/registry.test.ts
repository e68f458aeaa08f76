import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { Session } from '../session/session.js';
import { memoryDriver } from '../stores/memory.js';
import { openRegisteredStore, registerStore, registeredSchemes, type StoreLoader } from './registry.js';
import type * as Registry from './registry.js';
import type { AnyStoreDriver } from './driver-types.js';

async function failure(run: () => unknown): Promise<ChatstateError> {
  try {
    await run();
  } catch (error) {
    if (ChatstateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatstateError');
}

describe('registerStore', () => {
  it('opens a URL of a registered scheme through its loader, with the URL whole and the options', async () => {
    const calls: Array<[string, unknown]> = [];
    registerStore('Reg-One', async (url, options) => {
      calls.push([url, options]);
      return memoryDriver({ name: 'reg-one' });
    });
    const store = await openRegisteredStore('REG-ONE:anything/here', { defaultTtlMs: 1000 });
    expect(calls).toEqual([['REG-ONE:anything/here', { defaultTtlMs: 1000 }]]);
    // A driver is made into a store with the options.
    expect(store.name).toBe('reg-one');
    const saved = await store.save(Session.create({ id: 's' }));
    expect((await store.summary(saved.id))?.expiresAt).toBeDefined();
    expect(registeredSchemes()).toContain('reg-one:');
    await store.close();
  });

  it('a loader may return a store: it is used as it is', async () => {
    const driver = memoryDriver({ name: 'reg-two' });
    const { createSessionStore } = await import('./session-store.js');
    const made = createSessionStore(driver);
    registerStore('reg-two:', async () => made);
    expect(await openRegisteredStore('reg-two:')).toBe(made);
  });

  it('refuses a bad scheme, a loader that is not a function, and a second loader without replace', async () => {
    for (const scheme of ['', 'x', 'c:', '1abc', 'a b', 'ü-store', 42 as unknown as string]) {
      expect((await failure(() => registerStore(scheme, async () => memoryDriver()))).code, String(scheme)).toBe(
        'INVALID_ARGUMENT',
      );
    }
    expect((await failure(() => registerStore('reg-three', 'nope' as unknown as StoreLoader))).code).toBe(
      'INVALID_ARGUMENT',
    );
    const first: StoreLoader = async () => memoryDriver({ name: 'first' });
    const second: StoreLoader = async () => memoryDriver({ name: 'second' });
    registerStore('reg-three', first);
    // The same loader again is no change.
    registerStore('reg-three:', first);
    const taken = await failure(() => registerStore('reg-three', second));
    expect(taken.code).toBe('INVALID_ARGUMENT');
    expect(taken.message).toContain('replace: true');
    expect((await openRegisteredStore('reg-three:')).name).toBe('first');
    registerStore('reg-three', second, { replace: true });
    expect((await openRegisteredStore('reg-three:')).name).toBe('second');
  });

  it('a loader that returns neither a store nor a driver is INVALID_ARGUMENT naming the scheme', async () => {
    registerStore('reg-four', async () => ({ nothing: true }) as unknown as AnyStoreDriver);
    const error = await failure(() => openRegisteredStore('reg-four:x'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('reg-four:');
  });

  it('a driver the core refuses options for is closed, not leaked', async () => {
    let closed = 0;
    registerStore('reg-five', async () => ({ ...memoryDriver(), close: async () => void (closed += 1) }));
    const error = await failure(() => openRegisteredStore('reg-five:', { defaultTtlMs: -1 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(closed).toBe(1);
  });
});

describe('openRegisteredStore: URLs it cannot open', () => {
  it('an unknown scheme is INVALID_ARGUMENT listing the registered schemes', async () => {
    registerStore('reg-six', async () => memoryDriver());
    const error = await failure(() => openRegisteredStore('nosuch://host/db'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('unknown scheme "nosuch:"');
    expect(error.message).toContain('reg-six:');
    expect(error.message).toContain('registerStore');
    expect(error.details).toMatchObject({ scheme: 'nosuch:', registered: registeredSchemes() });
  });

  it('a path says which file: URL it probably meant', async () => {
    const cases: Array<[string, string]> = [
      ['./dir', 'file:./dir'],
      ['../sessions/x', 'file:../sessions/x'],
      ['sessions', 'file:sessions'],
      ['data/chat:1', 'file:data/chat:1'],
      ['/var/lib/chat', 'file:/var/lib/chat'],
      ['C:\\Users\\me\\chat', 'file:C:\\Users\\me\\chat'],
      ['d:/chat', 'file:d:/chat'],
      ['~', `file:${homedir()}`],
      ['~/chat', `file:${homedir()}/chat`],
    ];
    for (const [url, suggestion] of cases) {
      const error = await failure(() => openRegisteredStore(url));
      expect(error.code, url).toBe('INVALID_ARGUMENT');
      expect(error.message, url).toContain(`did you mean ${JSON.stringify(suggestion)}?`);
      expect(error.details, url).toEqual({ suggestion });
    }
  });

  it('a registered scheme without its colon says so', async () => {
    registerStore('reg-seven', async () => memoryDriver());
    expect((await failure(() => openRegisteredStore('reg-seven'))).message).toContain('did you mean "reg-seven:"?');
  });

  it('no URL at all is INVALID_ARGUMENT', async () => {
    for (const url of ['', undefined, null, 42] as unknown as string[]) {
      expect((await failure(() => openRegisteredStore(url))).code, String(url)).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('the registry across copies of chatstate', () => {
  it('a scheme registered through another loaded copy of the module opens through this one', async () => {
    // A second instance of the module, as a store package with its own copy of chatstate loads it.
    const copy = new URL(`./registry.ts?copy=${Date.now()}`, import.meta.url).href;
    const other = (await import(/* @vite-ignore */ copy)) as typeof Registry;
    expect(other.registerStore).not.toBe(registerStore);
    other.registerStore('other-copy', async () => memoryDriver({ name: 'other-copy' }));
    expect(registeredSchemes()).toContain('other-copy:');
    const store = await openRegisteredStore('other-copy:x');
    expect(store.name).toBe('other-copy');
    await store.close();
  });
});
