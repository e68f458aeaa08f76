/**
 * A store from outside chatstate passes the whole conformance kit: the test-only JSON-lines driver
 * (the required session primitives only), registered under `jsonl:` with `registerStore` and
 * opened by URL through `openStore`, in this process and in the kit's child processes. Purging
 * and search come from the core's fallbacks; values are refused with `UNSUPPORTED` (the kit checks
 * both, since the config declares no values).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore, registeredSchemes } from '../../src/stores/open-store.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { jsonlDriver } from './jsonl-driver.js';
import './jsonl-register.js';

const REGISTER = new URL('./jsonl-register.ts', import.meta.url).href;
const directories = new WeakMap<SessionStore, string>();

function directoryOf(store: SessionStore): string {
  const directory = directories.get(store);
  if (directory === undefined) throw new Error('not a store this suite created');
  return directory;
}

runStoreConformance({
  name: 'jsonl (a third-party store)',
  async create(options) {
    const directory = mkdtempSync(join(tmpdir(), 'chatstate-jsonl-conformance-'));
    const store = await openStore(`jsonl:${directory}`, options);
    directories.set(store, directory);
    return store;
  },
  async destroy(store) {
    await store.close();
    rmSync(directoryOf(store), { recursive: true, force: true });
  },
  async reopen(store, options) {
    const second = await openStore(`jsonl:${directoryOf(store)}`, options);
    directories.set(second, directoryOf(store));
    return second;
  },
  crossProcess: { url: (store) => `jsonl:${directoryOf(store)}`, register: REGISTER },
  directory: directoryOf,
  capabilities: { values: false, textSearch: false },
});

describe('jsonl: what the kit runs on', () => {
  it('the driver implements only the required session primitives', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'chatstate-jsonl-'));
    try {
      const driver = await jsonlDriver(directory);
      expect(Object.keys(driver).sort()).toEqual([
        'append',
        'close',
        'list',
        'name',
        'readAll',
        'readHead',
        'readRange',
        'remove',
        'replace',
      ]);
      await driver.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('is registered by scheme beside the built-in stores', () => {
    expect(registeredSchemes()).toEqual(
      expect.arrayContaining([
        'jsonl:',
        'file:',
        'memory:',
        'sqlite:',
        'postgres:',
        'postgresql:',
        'redis:',
        'rediss:',
      ]),
    );
  });

  it('purges expired sessions through the core (list + remove), leaving only lock-free session files', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'chatstate-jsonl-'));
    let now = 1_000_000;
    const store = await openStore(`jsonl:${directory}`, { now: () => now });
    try {
      await store.save(Session.create({ id: 'short', messages: [Message.user('bye soon')] }), { ttlMs: 10 });
      await store.save(Session.create({ id: 'long', messages: [Message.user('here to stay')] }));
      now += 11;
      expect(await store.purgeExpired()).toBe(1);
      expect((await store.list()).map((row) => row.id)).toEqual(['long']);
      expect(readdirSync(directory)).toEqual(['long.jsonl']);
    } finally {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
