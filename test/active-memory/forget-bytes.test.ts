/**
 * `forget` deletes a fact's text from the stored bytes, not only from recall: after it, no file of
 * a file store (snapshot, journals, the backup of the state before) holds it. (SQLite keeps
 * deleted rows in free pages and FTS segments until they are reused or vacuumed: not covered yet.)
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileSubject, type StoreUnderTest } from './harness.js';

const SECRET = 'quokka-passphrase-8841';

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

describe.each([['file', fileSubject('forget'), (url: string) => url.slice('file:'.length)]] as Array<
  [string, StoreUnderTest, (url: string) => string]
>)('forget on the %s store', (_name, subject, dirOf) => {
  let store: SessionStore | undefined;
  afterEach(async () => {
    if (store !== undefined) await subject.destroy(store);
    store = undefined;
  });

  it('leaves no byte of the forgotten fact on disk', async () => {
    store = await subject.create();
    const dir = dirOf(subject.url(store) as string);
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const fact = await handle.remember(`The user's vault passphrase is ${SECRET}`);
    await handle.remember('The user keeps a vault in the cellar');
    expect((await handle.recall('vault passphrase', { k: 5 })).length).toBe(2);
    // The fact is on disk before: the scan below can fail.
    expect(holdsSecret(dir).length).toBeGreaterThan(0);
    await handle.forget(fact.messageId);
    expect((await handle.recall('vault passphrase', { k: 5 })).map((hit) => hit.messageId)).not.toContain(
      fact.messageId,
    );
    await store.close();
    store = await subject.reopen(store);
    expect(holdsSecret(dir)).toEqual([]);
  });
});
