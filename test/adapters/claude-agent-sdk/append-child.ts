/**
 * One process appending to Claude Agent SDK transcripts through `chatstateSessionStore`: opens the
 * store at `CHATSTATE_STORE`, marks itself ready in `BARRIER_DIR` and waits until every writer of
 * `WRITERS` is (so the writers overlap however slowly each one started), then for `BATCHES`
 * batches appends to the sessions of `SESSIONS` (comma-separated) in turn (see `writerBatch`),
 * retrying every fourth batch whole, as the SDK retries a rejected append.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatstateSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js';
import { openStore } from '../../../src/stores/open-store.js';
import { PROJECT, writerBatch } from './concurrent-writers.js';

const env = process.env;
const store = await openStore(env['CHATSTATE_STORE'] as string);
try {
  const sessions = (env['SESSIONS'] as string).split(',');
  const writer = env['WRITER'] as string;
  const adapter = chatstateSessionStore({ store });
  // The SDK (loaded by the first summary fold) is loaded before the start, like the store.
  await import('@anthropic-ai/claude-agent-sdk');
  const barrier = env['BARRIER_DIR'] as string;
  const writers = (env['WRITERS'] as string).split(',');
  writeFileSync(join(barrier, writer), '');
  const deadline = Date.now() + 60_000;
  while (!writers.every((each) => readdirSync(barrier).includes(each))) {
    if (Date.now() > deadline) throw new Error(`${writer}: the other writers never got ready`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (let index = 0; index < Number(env['BATCHES']); index++) {
    const sessionId = sessions[index % sessions.length] as string;
    const batch = writerBatch(writer, sessionId, index);
    await adapter.append({ projectKey: PROJECT, sessionId }, batch);
    if (index % 4 === 3) await adapter.append({ projectKey: PROJECT, sessionId }, batch);
  }
} finally {
  await store.close();
}
