/**
 * `npx tsx examples/claude-agent-sdk.ts`: Claude Agent SDK sessions kept in a chatstate store, with
 * no network and no Claude Code binary. It appends what Claude Code mirrors to a `SessionStore`
 * during a session (a prompt, a subagent's transcript, a tool result, an answer, a title), retries
 * a batch as the SDK does after a failed append, then opens the store again as another process
 * would and reads the session back with the SDK's own functions — and as a chatstate conversation.
 * The store is `CHATSTATE_STORE` (an `openStore` URL), by default the file store in `.chatstate/`.
 */
import { randomUUID } from 'node:crypto';
import { getSessionMessages, listSessions, listSubagents } from '@anthropic-ai/claude-agent-sdk';
import { chatstateSessionStore, type ClaudeSessionEntry } from '../src/adapters/claude-agent-sdk/index.js';
import { Message } from '../src/message/message.js';
import { openStore } from '../src/stores/open-store.js';

const url = process.env.CHATSTATE_STORE ?? 'file:.chatstate';
const dir = process.cwd();
// The SDK's projectKey for a directory: its path with every character but letters and digits as '-'.
const projectKey = dir.replace(/[^a-zA-Z0-9]/g, '-');
const sessionId = randomUUID();
const agentId = 'explore1';
const ids = Array.from({ length: 6 }, () => randomUUID());
const at = (second: number) => new Date(Date.UTC(2025, 9, 1, 9, 0, second)).toISOString();
const line = { sessionId, cwd: dir, version: '2.1.3', gitBranch: 'main', userType: 'external' };

const main: ClaudeSessionEntry[] = [
  {
    ...line,
    type: 'user',
    uuid: ids[0],
    parentUuid: null,
    isSidechain: false,
    timestamp: at(0),
    message: { role: 'user', content: 'Where do we read process.version?' },
  },
  {
    ...line,
    type: 'assistant',
    uuid: ids[1],
    parentUuid: ids[0],
    isSidechain: false,
    timestamp: at(1),
    message: {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'tool_use', id: 'toolu_task', name: 'Task', input: { subagent_type: 'Explore', prompt: 'find it' } },
      ],
      usage: { input_tokens: 812, output_tokens: 41, cache_read_input_tokens: 12_288 },
    },
  },
  {
    ...line,
    type: 'user',
    uuid: ids[2],
    parentUuid: ids[1],
    isSidechain: false,
    timestamp: at(4),
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_task', content: 'Only scripts/check.mjs reads it.' }],
    },
  },
  {
    ...line,
    type: 'assistant',
    uuid: ids[3],
    parentUuid: ids[2],
    isSidechain: false,
    timestamp: at(5),
    message: {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Only `scripts/check.mjs` reads `process.version`, to refuse Node < 20.' }],
    },
  },
  { type: 'custom-title', customTitle: 'process.version readers', sessionId },
  { type: 'tag', tag: 'audit', sessionId },
  {
    ...line,
    type: 'system',
    subtype: 'turn_duration',
    uuid: ids[4],
    parentUuid: ids[3],
    isSidechain: false,
    timestamp: at(5),
    durationMs: 5123,
    isMeta: true,
  },
  { type: 'last-prompt', lastPrompt: 'Where do we read process.version?', sessionId },
  { type: 'file-history-snapshot', messageId: ids[5], snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false },
];
const subagent: ClaudeSessionEntry[] = [
  {
    ...line,
    agentId,
    type: 'user',
    uuid: randomUUID(),
    parentUuid: null,
    isSidechain: true,
    timestamp: at(2),
    message: { role: 'user', content: 'find it' },
  },
  {
    ...line,
    agentId,
    type: 'assistant',
    uuid: randomUUID(),
    parentUuid: null,
    isSidechain: true,
    timestamp: at(3),
    message: { role: 'assistant', content: [{ type: 'text', text: 'Only scripts/check.mjs reads it.' }] },
  },
];

// The first process: Claude Code's mirror appends in batches as the session goes.
const key = { projectKey, sessionId };
let store = await openStore(url);
let sessionStore = chatstateSessionStore({ store, ttlMs: 30 * 24 * 60 * 60 * 1000 });
await sessionStore.append(key, main.slice(0, 2));
await sessionStore.append({ ...key, subpath: `subagents/agent-${agentId}` }, subagent);
await sessionStore.append(key, main.slice(2, 4));
// A retry of a batch that had landed (its append timed out): entries with a uuid are not stored twice.
await sessionStore.append(key, main.slice(2, 4));
await sessionStore.append(key, main.slice(4));
await store.close();

// Another process, later: the SDK resumes from what the store gives back.
store = await openStore(url);
sessionStore = chatstateSessionStore({ store });
const loaded = await sessionStore.load(key);
const same = JSON.stringify(loaded) === JSON.stringify(main);
console.log(`resumed in a new process: ${loaded?.length ?? 0} entries, ${same ? 'deep-equal' : 'DIFFERENT'}`);
if (!same) process.exitCode = 1;

const [listed] = await listSessions({ dir, sessionStore, limit: 1 });
console.log(`newest session: "${listed?.summary}" (tag ${listed?.tag}, first prompt "${listed?.firstPrompt}")`);
for (const message of await getSessionMessages(sessionId, { dir, sessionStore }))
  console.log(`  ${message.type}: ${JSON.stringify((message.message as { content: unknown }).content).slice(0, 70)}`);
console.log(
  `subagents: ${(await listSubagents(sessionId, { dir, sessionStore })).map((id) => `agent-${id}`).join(', ')}`,
);

// The same transcript as chatstate keeps it: what `chatstate show`, the server and the web browser show.
const id = sessionStore.sessionIdOf(key);
console.log(`\nchatstate show ${id} --store ${url}`);
for (const message of (await store.load(id)).messages) {
  const calls = message.toolCalls?.map((call) => ` → ${call.name}(${call.arguments})`).join('') ?? '';
  console.log(`  #${message.seq} ${message.role}/${message.category}: ${Message.text(message).slice(0, 60)}${calls}`);
}
await store.close();
