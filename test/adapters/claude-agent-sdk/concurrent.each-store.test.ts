/**
 * Two processes appending through `chatstateSessionStore` to the same two sessions of one project
 * at once (file, SQLite, Postgres, Redis; two adapters in one process on the memory store): every
 * entry with a uuid lands exactly once, each entry without one once per append that carried it,
 * each writer's entries keep its order, and each summary is the SDK's fold of the transcript as
 * stored — no update lost, none folded out of order.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import { expect, it, onTestFinished } from 'vitest';
import { chatstateSessionStore, type ClaudeSessionEntry } from '../../../src/adapters/claude-agent-sdk/index.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { PROJECT, writerBatch, writerEntries } from './concurrent-writers.js';

const CHILD = fileURLToPath(new URL('./append-child.ts', import.meta.url));
const runFile = promisify(execFile);
const BATCHES = 16;
const WRITERS = ['w1', 'w2'];

await describeEveryStore(
  'claude-agent-sdk: two writers at once',
  (subject) => {
    const stores = storesOf(subject);

    it('lose no entry and no summary update, in each writer’s order', async () => {
      const store = await stores.open();
      const sessions = [randomUUID(), randomUUID()];
      const url = subject.url(store);
      if (url === undefined) {
        // The memory store lives in one process: two adapters over it, their appends interleaved.
        await Promise.all(
          WRITERS.map(async (writer) => {
            const adapter = chatstateSessionStore({ store });
            for (let index = 0; index < BATCHES; index++) {
              const sessionId = sessions[index % sessions.length] as string;
              const batch = writerBatch(writer, sessionId, index);
              await adapter.append({ projectKey: PROJECT, sessionId }, batch);
              if (index % 4 === 3) await adapter.append({ projectKey: PROJECT, sessionId }, batch);
            }
          }),
        );
      } else {
        const barrier = mkdtempSync(join(tmpdir(), 'chatstate-cas-barrier-'));
        onTestFinished(() => rmSync(barrier, { recursive: true, force: true }));
        await Promise.all(
          WRITERS.map((writer) =>
            runFile(process.execPath, ['--import', 'tsx', CHILD], {
              env: {
                ...process.env,
                CHATSTATE_STORE: url,
                SESSIONS: sessions.join(','),
                WRITER: writer,
                BATCHES: String(BATCHES),
                WRITERS: WRITERS.join(','),
                BARRIER_DIR: barrier,
              },
              timeout: 90_000,
            }),
          ),
        );
      }

      const adapter = chatstateSessionStore({ store });
      let switches = 0;
      for (const [slot, sessionId] of sessions.entries()) {
        const key = { projectKey: PROJECT, sessionId };
        const stored = (await adapter.load(key)) ?? [];
        const ofWriter = (writer: string) => stored.filter((entry) => JSON.stringify(entry).includes(` ${writer}-`));
        for (const writer of WRITERS)
          expect(ofWriter(writer)).toEqual(writerEntries(writer, sessionId, slot, sessions.length, BATCHES));
        expect(stored).toHaveLength(
          WRITERS.reduce(
            (sum, writer) => sum + writerEntries(writer, sessionId, slot, sessions.length, BATCHES).length,
            0,
          ),
        );
        const writers = stored.map((entry) => (JSON.stringify(entry).includes(' w1-') ? 'w1' : 'w2'));
        switches += writers.filter((writer, index) => index > 0 && writer !== writers[index - 1]).length;
        const uuids = stored.flatMap((entry: ClaudeSessionEntry) => (entry.uuid === undefined ? [] : [entry.uuid]));
        expect(new Set(uuids).size).toBe(uuids.length);
        // The summary is the SDK's own fold over the transcript in its stored order.
        const summary = (await adapter.listSessionSummaries(PROJECT)).find((row) => row.sessionId === sessionId);
        expect(summary?.data).toEqual(foldSessionSummary(undefined, key, stored).data);
        const listed = (await adapter.listSessions(PROJECT)).find((row) => row.sessionId === sessionId);
        expect(summary?.mtime).toBeGreaterThanOrEqual(listed?.mtime ?? Infinity);
      }
      // The writers did overlap: their entries are interleaved, not one writer's after the other's.
      expect(switches).toBeGreaterThan(2);
    });
  },
  'cas',
);
