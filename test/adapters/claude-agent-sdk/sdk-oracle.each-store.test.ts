/**
 * The Claude Agent SDK's own functions (`listSessions`, `getSessionInfo`, `getSessionMessages`,
 * `listSubagents`, `getSubagentMessages`, `forkSession`, `renameSession`, `tagSession`,
 * `deleteSession`, `importSessionToStore`) over `chatstateSessionStore` on every store, each call
 * made with the same inputs against the SDK's `InMemorySessionStore` as the oracle: the results
 * must be equal. Only what legitimately differs is normalized: `lastModified` (each store's clock),
 * and the ids and time stamps the SDK makes up on each call (a fork's session id and entry uuids,
 * the uuid and time of a title it writes) — see `normalizeGenerated`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InMemorySessionStore,
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  importSessionToStore,
  listSessions,
  listSubagents,
  renameSession,
  tagSession,
  type SessionStore as SdkSessionStore,
} from '@anthropic-ai/claude-agent-sdk';
import { afterAll, expect, it } from 'vitest';
import { chatstateSessionStore, type ClaudeSessionKey } from '../../../src/adapters/claude-agent-sdk/index.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import {
  batches,
  comparableRows,
  mainTranscript,
  normalizeGenerated,
  projectKeyOf,
  stringsOf,
  subagentTranscript,
} from './transcripts.js';

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

/** A project directory the SDK resolves (it need not hold anything). */
function projectDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'chatstate-cas-project-')));
  temp.push(dir);
  return dir;
}

await describeEveryStore(
  'claude-agent-sdk: the SDK over chatstate, against InMemorySessionStore',
  (subject) => {
    const stores = storesOf(subject);

    it('lists, reads, forks, renames, tags and deletes sessions as the SDK does over its own store', async () => {
      const store = await stores.open();
      // The check below is type-level too: the adapter is the SDK's SessionStore as it is.
      const ours: SdkSessionStore = chatstateSessionStore({ store });
      const oracle = new InMemorySessionStore();
      const dir = projectDir();
      const projectKey = await projectKeyOf(dir);
      const [first, second] = [randomUUID(), randomUUID()];
      const a = mainTranscript(first, dir, 'Node 20 build');
      const b = mainTranscript(second, dir, 'Second thoughts');
      const sub = subagentTranscript(first, 'a1b2c3d4e5f6a7b8c', dir);
      const keyA: ClaudeSessionKey = { projectKey, sessionId: first };
      const keyB: ClaudeSessionKey = { projectKey, sessionId: second };
      const subKey: ClaudeSessionKey = { ...keyA, subpath: 'subagents/agent-a1b2c3d4e5f6a7b8c' };
      for (const target of [ours, oracle]) {
        for (const batch of batches(a.entries, [1, 3, 2, 5])) await target.append(keyA, batch);
        await target.append(subKey, sub);
        for (const batch of batches(b.entries, [8])) await target.append(keyB, batch);
      }
      // A retried batch whose entries all carry a uuid adds nothing (the oracle never sees it).
      await ours.append(keyA, a.entries.slice(1, 4));

      expect(await ours.load(keyA)).toEqual(await oracle.load(keyA));
      expect(await ours.load(keyB)).toEqual(await oracle.load(keyB));
      expect(await ours.load(subKey)).toEqual(await oracle.load(subKey));
      expect(await ours.load({ projectKey, sessionId: randomUUID() })).toBeNull();

      const known = stringsOf([a.entries, b.entries, sub, first, second]);
      const both = async <T>(call: (sessionStore: SdkSessionStore) => Promise<T>): Promise<[T, T]> => [
        await call(ours),
        await call(oracle),
      ];
      const [ourList, oracleList] = await both((sessionStore) => listSessions({ dir, sessionStore }));
      expect(ourList).toHaveLength(2);
      expect(comparableRows(ourList, known)).toEqual(comparableRows(oracleList, known));
      // Newest first: session B was appended to last.
      expect(ourList.map((row) => row.sessionId)).toEqual([second, first]);
      // The summaries came from the sidecars (the SDK's fallback would load every transcript).
      const ourSummaries = (await ours.listSessionSummaries?.(projectKey)) ?? [];
      const oracleSummaries = (await oracle.listSessionSummaries(projectKey)) ?? [];
      const bySession = (rows: { sessionId: string; data: unknown }[]) =>
        rows.map(({ sessionId, data }) => ({ sessionId, data })).sort((x, y) => x.sessionId.localeCompare(y.sessionId));
      expect(bySession(ourSummaries)).toEqual(bySession(oracleSummaries));
      const mtimes = new Map((await ours.listSessions?.(projectKey))?.map((row) => [row.sessionId, row.mtime]));
      for (const summary of ourSummaries)
        expect(summary.mtime).toBeGreaterThanOrEqual(mtimes.get(summary.sessionId) ?? Infinity);

      const [ourInfo, oracleInfo] = await both((sessionStore) => getSessionInfo(first, { dir, sessionStore }));
      expect({ ...ourInfo, lastModified: 0 }).toEqual({ ...oracleInfo, lastModified: 0 });
      for (const options of [{}, { includeSystemMessages: true }, { limit: 2, offset: 1 }]) {
        const [ourMessages, oracleMessages] = await both((sessionStore) =>
          getSessionMessages(first, { dir, sessionStore, ...options }),
        );
        expect(ourMessages.length).toBeGreaterThan(0);
        expect(ourMessages).toEqual(oracleMessages);
      }
      const [ourAgents, oracleAgents] = await both((sessionStore) => listSubagents(first, { dir, sessionStore }));
      expect(ourAgents).toEqual(['a1b2c3d4e5f6a7b8c']);
      expect(ourAgents).toEqual(oracleAgents);
      const [ourSub, oracleSub] = await both((sessionStore) =>
        getSubagentMessages(first, 'a1b2c3d4e5f6a7b8c', { dir, sessionStore }),
      );
      expect(ourSub).toHaveLength(2);
      expect(ourSub).toEqual(oracleSub);

      // A fork up to the first answer: new ids on each side, the same transcript otherwise.
      const [ourFork, oracleFork] = await both((sessionStore) =>
        forkSession(first, { dir, sessionStore, upToMessageId: a.ids.answer }),
      );
      const ourForked = await ours.load({ projectKey, sessionId: ourFork.sessionId });
      expect(ourForked?.length).toBeGreaterThan(3);
      expect(normalizeGenerated(ourForked, known)).toEqual(
        normalizeGenerated(await oracle.load({ projectKey, sessionId: oracleFork.sessionId }), known),
      );
      await both((sessionStore) => renameSession(second, 'Renamed by the SDK', { dir, sessionStore }));
      await both((sessionStore) => tagSession(second, 'reviewed', { dir, sessionStore }));
      const [listedAfter, oracleAfter] = await both((sessionStore) => listSessions({ dir, sessionStore }));
      expect(listedAfter).toHaveLength(3);
      expect(comparableRows(listedAfter, known)).toEqual(comparableRows(oracleAfter, known));
      expect(listedAfter.find((row) => row.sessionId === second)).toMatchObject({
        summary: 'Renamed by the SDK',
        tag: 'reviewed',
      });

      // Deleting a main transcript deletes its subagent transcripts and its summary too.
      await both((sessionStore) => deleteSession(first, { dir, sessionStore }));
      for (const target of [ours, oracle]) {
        expect(await target.load(keyA)).toBeNull();
        expect(await target.load(subKey)).toBeNull();
        expect(await target.listSubkeys?.(keyA)).toEqual([]);
      }
      const [ourRest, oracleRest] = await both((sessionStore) => listSessions({ dir, sessionStore }));
      expect(comparableRows(ourRest, known)).toEqual(comparableRows(oracleRest, known));
      expect((await ours.listSessionSummaries?.(projectKey))?.map((row) => row.sessionId).sort()).toEqual(
        [second, ourFork.sessionId].sort(),
      );
      // Nothing of session A is left in the chatstate store.
      // B and the fork, each with its sidecar (an internal session: listed with kinds 'all').
      expect((await store.list({ idPrefix: 'claude.', kinds: 'all' })).length).toBe(4);
      expect((await store.list({ idPrefix: 'claude.' })).length).toBe(2);
    });

    it('imports a local JSONL session (with a subagent) as the SDK imports it into its own store', async () => {
      const store = await stores.open();
      const ours = chatstateSessionStore({ store });
      const oracle = new InMemorySessionStore();
      const dir = projectDir();
      const config = realpathSync(mkdtempSync(join(tmpdir(), 'chatstate-cas-config-')));
      temp.push(config);
      const projectKey = await projectKeyOf(dir);
      const sessionId = randomUUID();
      const { entries } = mainTranscript(sessionId, dir, 'Imported');
      const sub = subagentTranscript(sessionId, 'f00dfeed', dir);
      const folder = join(config, 'projects', projectKey);
      mkdirSync(join(folder, sessionId, 'subagents'), { recursive: true });
      const jsonl = (lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
      writeFileSync(join(folder, `${sessionId}.jsonl`), jsonl(entries));
      writeFileSync(join(folder, sessionId, 'subagents', 'agent-f00dfeed.jsonl'), jsonl(sub));
      writeFileSync(
        join(folder, sessionId, 'subagents', 'agent-f00dfeed.meta.json'),
        JSON.stringify({ agentType: 'Explore', description: 'Find process.version' }),
      );
      // Where the SDK looks for local transcripts: <CLAUDE_CONFIG_DIR>/projects/<projectKey>/.
      const saved = process.env.CLAUDE_CONFIG_DIR;
      process.env.CLAUDE_CONFIG_DIR = config;
      try {
        await importSessionToStore(sessionId, ours, { dir, batchSize: 5 });
        await importSessionToStore(sessionId, oracle, { dir, batchSize: 5 });
        const key = { projectKey, sessionId };
        const known = stringsOf([entries, sub, sessionId]);
        const subKey = { ...key, subpath: 'subagents/agent-f00dfeed' };
        const imported = await ours.load(key);
        expect(imported).toHaveLength(entries.length);
        expect(imported).toEqual(await oracle.load(key));
        expect(await ours.load(subKey)).toEqual(await oracle.load(subKey));
        expect(await ours.listSubkeys(key)).toEqual(await oracle.listSubkeys(key));
        const [ourList, oracleList] = [
          await listSessions({ dir, sessionStore: ours }),
          await listSessions({ dir, sessionStore: oracle }),
        ];
        expect(comparableRows(ourList, known)).toEqual(comparableRows(oracleList, known));
        expect(ourList[0]?.summary).toBe('Imported');

        // Imported again: every entry with a uuid is already there; those without one (titles,
        // tags, the subagent's metadata) are appended again, as the SDK's contract says.
        await importSessionToStore(sessionId, ours, { dir, batchSize: 7 });
        const withoutUuid = entries.filter((entry) => entry.uuid === undefined);
        expect(await ours.load(key)).toEqual([...entries, ...withoutUuid]);
        expect((await ours.load(subKey))?.length).toBe(sub.length + 2);
      } finally {
        if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
        else process.env.CLAUDE_CONFIG_DIR = saved;
      }

      // The transcript is a readable chatstate conversation.
      const session = await store.load(ours.sessionIdOf({ projectKey, sessionId }));
      const shown = session.messages.map(
        (message) => `${message.role}/${message.category}${message.name ? `/${message.name}` : ''}`,
      );
      expect(shown.slice(0, 8)).toEqual([
        'system/context/file-history-snapshot',
        'user/dialog',
        'assistant/dialog',
        'assistant/dialog',
        'tool/tool_output',
        'assistant/dialog',
        'system/context/system:compact_boundary',
        'user/context',
      ]);
      const [, prompt, thinking, call, result] = session.messages;
      expect(prompt?.content).toBe('Why does `npm test` fail on Node 20?');
      expect(thinking?.content).toEqual([
        { type: 'reasoning', text: 'Check the engines field first.', provider: 'anthropic' },
      ]);
      expect(call?.toolCalls).toEqual([
        { id: 'toolu_01A', name: 'Read', arguments: JSON.stringify({ file_path: `${dir}/package.json` }) },
      ]);
      expect(result).toMatchObject({ toolCallId: 'toolu_01A', content: '{\n  "engines": { "node": ">=22" }\n}' });
      expect((await store.list({ idPrefix: 'claude.' })).find((row) => row.id === session.id)?.title).toBe(
        'Why does `npm test` fail on Node 20?',
      );
    });
  },
  'cas',
);
