/**
 * The importer and the session share one converter: a conversation the SDK's own `MemorySession`
 * kept, exported as its JSON items and read by `import --from openai-agents`, continues under
 * `chatstateSession` on every store — its items read back as the SDK wrote them, and the next run's
 * model request carries them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySession, run, type AgentInputItem } from '@openai/agents-core';
import { assistantMessage, functionCall } from '@openai/agents-core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { importerFor } from '../../../src/interchange/index.js';
import type { ImportItem } from '../../../src/interchange/types.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { scriptedAgent } from './agent-fixture.js';

let dir: string;
let file: string;
let written: AgentInputItem[];

beforeAll(async () => {
  // A real run on the SDK's own in-memory session, saved as the importer's JS format.
  const memory = new MemorySession({ sessionId: 'sdk' });
  const { agent } = scriptedAgent([
    [functionCall('weather', { city: 'Oslo' }, { callId: 'call_1' })],
    [assistantMessage('Sunny in Oslo.')],
    [functionCall('book_table', { city: 'Oslo', people: 3 }, { callId: 'call_2' })],
    [assistantMessage('Booked.')],
  ]);
  await run(agent, 'Weather in Oslo?', { session: memory });
  await run(agent, 'Book for 3.', { session: memory });
  written = await memory.getItems();
  dir = await mkdtemp(join(tmpdir(), 'chatstate-oaimport-'));
  file = join(dir, 'trip-7.json');
  await writeFile(file, JSON.stringify(written, null, 2));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

await describeEveryStore(
  'openai-agents import then continue',
  (subject) => {
    const stores = storesOf(subject);

    it('continues an imported SDK conversation with the items it had', async () => {
      const store = await stores.open();
      const importer = await importerFor('openai-agents');
      const found: ImportItem[] = [];
      for await (const item of importer.read(file)) found.push(item);
      const imported = found.find((item) => item.kind === 'session');
      expect(found.filter((item) => item.kind === 'problem')).toEqual([]);
      if (imported?.kind !== 'session') throw new Error('no session imported');
      await store.save(imported.session, { expectedVersion: 0 });

      const session = chatstateSession({ store, sessionId: 'trip-7' });
      expect(await session.getItems()).toEqual(written);
      const { agent, model } = scriptedAgent([[assistantMessage('Still sunny.')]]);
      await run(agent, 'Still sunny?', { session });
      expect((model.calls[0]?.request.input as AgentInputItem[]).slice(0, written.length)).toEqual(written);
      expect((await session.getItems()).length).toBe(written.length + 2);
    });
  },
  'oaimport',
);
