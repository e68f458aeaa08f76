/**
 * `forget` deletes a fact's text from the stored bytes, not only from recall: after it, no file of
 * a file store (snapshot, journals, the backup of the state before) holds it, and no byte of a
 * SQLite store's database, write-ahead log or shared-memory index does — not its full-text index
 * segments either (a delete only marks a row's terms there), while the store is still open and
 * after it is closed and opened again.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileSubject, sqliteSubject, type StoreUnderTest } from './harness.js';

// Letters only, ending in a letter no stemmer strips: the full-text index keeps it as one whole term.
const SECRET = 'quokkazqvaultkdbx';

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function holdsSecret(dir: string): string[] {
  return filesUnder(dir).filter((file) => readFileSync(file).includes(SECRET));
}

describe.each([
  ['file', fileSubject('forget'), (url: string) => url.slice('file:'.length)],
  // The database's directory holds the file, its -wal and its -shm: nothing else.
  ['sqlite', sqliteSubject('forget'), (url: string) => dirname(url.slice('sqlite:'.length))],
] as Array<[string, StoreUnderTest, (url: string) => string]>)('forget on the %s store', (_name, subject, dirOf) => {
  let store: SessionStore | undefined;
  afterEach(async () => {
    if (store !== undefined) await subject.destroy(store);
    store = undefined;
  });

  it('leaves no byte of the forgotten fact on disk', async () => {
    store = await subject.create();
    const dir = dirOf(subject.url(store) as string);
    let handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const fact = await handle.remember(`The user's vault passphrase is ${SECRET}`);
    await handle.remember('The user keeps a vault in the cellar');
    expect((await handle.recall('vault passphrase', { k: 5 })).length).toBe(2);
    // Closed and opened again, the fact is in the store's settled files (SQLite: checkpointed from
    // the log into the database, its index segment included), and on disk: the scans below can fail.
    store = await subject.reopen(store);
    handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    expect(holdsSecret(dir).length).toBeGreaterThan(0);
    await handle.forget(fact.messageId);
    expect((await handle.recall('vault passphrase', { k: 5 })).map((hit) => hit.messageId)).not.toContain(
      fact.messageId,
    );
    expect(holdsSecret(dir)).toEqual([]);
    store = await subject.reopen(store);
    expect(holdsSecret(dir)).toEqual([]);
  });
});
