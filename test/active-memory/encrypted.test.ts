/**
 * Recall on a store encrypted at rest: the store offers no full-text search (an index would leak
 * the text), so recall ranks in process; embeddings are stored sealed like every other value.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { hashedEmbed, seedSession } from './harness.js';

const KEY = Buffer.alloc(32, 9);

describe('active memory on an encrypted SQLite store', () => {
  let dir: string | undefined;
  let store: SessionStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('recalls in process, keeps users apart, and stores no plaintext', async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatstate-active-memory-sealed-'));
    const file = join(dir, 'sessions.db');
    store = await sqliteStore(file, { encryption: KEY });
    expect(store.searchText).toBeUndefined();
    await seedSession(store, 'a-1', 'alice', ['the vault combination is quasar', 'noted']);
    await seedSession(store, 'b-1', 'bob', ['my vault combination is pulsar', 'noted']);
    const alice = createSessionHandle({ store, sessionId: 'a-1', userId: 'alice', embed: hashedEmbed() });
    await alice.remember('alice keeps the vault key under the mat');
    await alice.store('secret', 'nebula', { scope: 'user' });
    const hits = await alice.recall('vault combination', { k: 10 });
    expect(hits.map((hit) => hit.text).sort()).toEqual([
      'alice keeps the vault key under the mat',
      'the vault combination is quasar',
    ]);
    await store.close();
    store = undefined;
    const bytes = readFileSync(file).toString('latin1');
    for (const plain of ['quasar', 'pulsar', 'under the mat', 'nebula']) expect(bytes.includes(plain)).toBe(false);
  });
});
