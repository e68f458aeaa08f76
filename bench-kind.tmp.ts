import { Session } from './src/session/session.js';
import { sqliteStore } from './src/stores/sqlite/index.js';
import { fileStore } from './src/stores/file/index.js';
import { memoryStore } from './src/stores/memory.js';
import { Message } from './src/message/message.js';
import { rmSync } from 'node:fs';

const N = Number(process.env.N ?? 4000);
async function run(name: string, store: Awaited<ReturnType<typeof sqliteStore>>) {
  for (let i = 0; i < N; i++) {
    const internal = i % 4 !== 0; // 3 of 4 internal: the default listing must read past them
    await store.save(
      Session.create({ id: `s${i}`, messages: [Message.user(`hi ${i}`)], metadata: internal ? { chatstate: 'knowledge' } : {} }),
    );
  }
  const time = async (q: object) => {
    for (let w = 0; w < 5; w++) await store.list({ limit: 100, ...q });
    const t = performance.now();
    const R = 50;
    for (let r = 0; r < R; r++) await store.list({ limit: 100, ...q });
    return (performance.now() - t) / R;
  };
  const all = await time({ kinds: 'all' });
  const conv = await time({});
  const know = await time({ kinds: ['knowledge'] });
  console.log(`${name}: N=${N} (1/4 conversations) list 100 rows: all ${all.toFixed(2)} ms, conversations ${conv.toFixed(2)} ms, kinds=[knowledge] ${know.toFixed(2)} ms; conversations/all ${(conv / all).toFixed(2)}x`);
  await store.close();
}
rmSync('/tmp/kind-bench', { recursive: true, force: true });
await run('memory', memoryStore() as never);
await run('sqlite', await sqliteStore('/tmp/kind-bench/db.sqlite') as never);
await run('file', fileStore('/tmp/kind-bench/files') as never);
