/**
 * A child process for the cross-process working memory test: opens the store at `url` and applies
 * `count` merge patches to user `u1`'s working memory, each setting a field of its own
 * (`<writer>-<index>`), then prints `done`. It starts writing once every one of `WRITERS`
 * processes has opened the store (each leaves a file named after it in `BARRIER`), so that
 * processes started one after the other, however slowly, write at the same time.
 *
 * Usage: node working-memory-child.mjs URL WRITER COUNT BARRIER WRITERS
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkingMemory } from '../../src/active-memory/working-memory.js';
import { openStore } from '../../src/stores/open-store.js';

const [url, writer, count, barrier, writers] = process.argv.slice(2);
if (url === undefined || writer === undefined || count === undefined || barrier === undefined || writers === undefined)
  throw new Error('usage: working-memory-child URL WRITER COUNT BARRIER WRITERS');
const store = await openStore(url);
try {
  writeFileSync(join(barrier, writer), '');
  while (readdirSync(barrier).length < Number(writers)) await new Promise((resolve) => setTimeout(resolve, 5));
  // Many attempts: the two processes write as fast as they can, far more often than agents would.
  const memory = new WorkingMemory({ store, userId: 'u1', maxAttempts: 500 });
  for (let index = 0; index < Number(count); index += 1) {
    await memory.update({ [`${writer}-${index}`]: index }, { by: writer });
    // 10–30 ms between edits, as between an agent's tool calls: a writer in its backoff (at most 100 ms) gets its turn.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  }
} finally {
  await store.close();
}
process.stdout.write('done\n');
