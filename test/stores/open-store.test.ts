/**
 * `openStore` and the scheme registry as a user meets them: the built-in schemes, the errors for a
 * path or an unknown scheme, and what importing `chatstate/stores` loads (no store module until a
 * store of its scheme is opened, and then only that one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, registeredSchemes } from '../../src/stores/open-store.js';
import { importInChild } from '../support/import-in-child.js';

const OPEN_STORE = new URL('../../src/stores/open-store.ts', import.meta.url).href;
const STORES = new URL('../../src/stores/', import.meta.url).href;

/** The modules under src/stores/ among `modules`, relative to it. */
function storeModules(modules: readonly string[]): string[] {
  return [...new Set(modules.filter((url) => url.startsWith(STORES)).map((url) => url.slice(STORES.length)))].sort();
}

describe('openStore', () => {
  it('registers the built-in schemes', () => {
    expect(registeredSchemes()).toEqual(
      expect.arrayContaining([
        'file:',
        'memory:',
        'postgres:',
        'postgresql:',
        'redis:',
        'rediss:',
        'redis+cluster:',
        'rediss+cluster:',
        'sqlite:',
      ]),
    );
  });

  it('a directory path instead of a URL says which file: URL it meant', async () => {
    await expect(openStore('./dir')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('did you mean "file:./dir"?'),
    });
    await expect(openStore('/srv/chat')).rejects.toMatchObject({
      message: expect.stringContaining('did you mean "file:/srv/chat"?'),
    });
    await expect(openStore('memory')).rejects.toMatchObject({
      message: expect.stringContaining('did you mean "memory:"?'),
    });
  });

  it('an unknown scheme lists the registered ones', async () => {
    const error = await openStore('mongodb://localhost/chat').catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toContain(
      'unknown scheme "mongodb:"; registered: file:, http:, https:, memory:, postgres:, postgresql:, redis+cluster:, redis:, rediss+cluster:, rediss:, sqlite:',
    );
  });

  it('opens memory: and file: stores (scheme case does not matter)', async () => {
    const memory = await openStore('MEMORY:');
    expect(memory.name).toBe('memory');
    await memory.close();
    const directory = mkdtempSync(join(tmpdir(), 'chatstate-open-store-'));
    try {
      const file = await openStore(`File:${directory}`);
      expect(await file.list()).toEqual([]);
      await file.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('importing chatstate/stores', () => {
  it('loads no store module; using memory: loads the memory store and no other', () => {
    const imported = importInChild({ hide: [], target: OPEN_STORE });
    expect(imported).toMatchObject({ imported: true });
    expect(storeModules(imported.modules)).toEqual(['open-store.ts']);
    const opened = importInChild({ hide: [], target: OPEN_STORE, open: 'memory:' });
    expect(opened).toMatchObject({ imported: true, opened: 'memory' });
    expect(storeModules(opened.modules)).toEqual(['memory-driver.ts', 'memory-store.ts', 'open-store.ts']);
  });
});

describe('importing the package root', () => {
  it('loads the store factories but no driver; using memory: loads its driver only', () => {
    const root = new URL('../../src/index.ts', import.meta.url).href;
    const imported = importInChild({ hide: [], target: root });
    expect(imported).toMatchObject({ imported: true });
    expect(storeModules(imported.modules)).toEqual([
      'file/options.ts',
      'file/store.ts',
      'file/tuning.ts',
      'memory-store.ts',
      'open-store.ts',
    ]);
    const opened = importInChild({ hide: [], target: root, open: 'memory:' });
    expect(storeModules(opened.modules)).toEqual([
      'file/options.ts',
      'file/store.ts',
      'file/tuning.ts',
      'memory-driver.ts',
      'memory-store.ts',
      'open-store.ts',
    ]);
  });
});
