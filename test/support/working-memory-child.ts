/**
 * A child process for the cross-process working memory test: opens the store at `url` and applies
 * `count` merge patches to user `u1`'s working memory, each setting a field of its own
 * (`<writer>-<index>`), then prints `done`. It starts writing at `START` (ms since the epoch), so
 * that processes started one after the other write at the same time.
 *
 * Usage: node working-memory-child.mjs URL WRITER COUNT START
 */
import { WorkingMemory } from '../../src/active-memory/working-memory.js';
import { openStore } from '../../src/stores/open-store.js';

const [url, writer, count, start] = process.argv.slice(2);
if (url === undefined || writer === undefined || count === undefined || start === undefined)
  throw new Error('usage: working-memory-child URL WRITER COUNT START');
const store = await openStore(url);
try {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(start) - Date.now())));
  // Many attempts: the two processes write as fast as they can, far more often than agents would.
  const memory = new WorkingMemory({ store, userId: 'u1', maxAttempts: 500 });
  for (let index = 0; index < Number(count); index += 1) {
    await memory.update({ [`${writer}-${index}`]: index }, { by: writer });
    // A few ms between edits, as between an agent's tool calls: a writer in its backoff gets its turn.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 8));
  }
} finally {
  await store.close();
}
process.stdout.write('done\n');
