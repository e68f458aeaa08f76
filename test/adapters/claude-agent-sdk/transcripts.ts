/**
 * Transcripts shaped like the ones Claude Code writes (one JSON object per JSONL line): prompts,
 * thinking, tool use and results, a compaction boundary and its summary, titles, tags, snapshots,
 * images and unicode, chained by `parentUuid`; and the helpers the suites share to compare what the
 * SDK reads from chatstate with what it reads from its own `InMemorySessionStore`.
 */
import { randomUUID } from 'node:crypto';
import type { SessionStore as SdkSessionStore } from '@anthropic-ai/claude-agent-sdk';
import { listSessions } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeSessionEntry } from '../../../src/adapters/claude-agent-sdk/index.js';

/** The `projectKey` the SDK derives from `dir` (asked of the SDK itself, through a recording store). */
export async function projectKeyOf(dir: string): Promise<string> {
  let seen: string | undefined;
  const recorder: SdkSessionStore = {
    append: async () => undefined,
    load: async () => null,
    listSessions: async (projectKey) => {
      seen = projectKey;
      return [];
    },
  };
  await listSessions({ dir, sessionStore: recorder });
  if (seen === undefined) throw new Error(`the SDK asked for no project listing for ${dir}`);
  return seen;
}

/** The uuids of a main transcript's entries, by role in the conversation. */
export interface TranscriptIds {
  readonly prompt: string;
  readonly answer: string;
  readonly followUp: string;
}

/** A main transcript of session `sessionId` in `cwd`: 17 lines, 4 of them without a uuid. */
export function mainTranscript(
  sessionId: string,
  cwd: string,
  title: string,
): { entries: ClaudeSessionEntry[]; ids: TranscriptIds } {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.3', gitBranch: 'main' };
  const uuids = Array.from({ length: 12 }, () => randomUUID());
  const at = (second: number) => new Date(Date.UTC(2025, 9, 1, 10, 0, second, 250)).toISOString();
  const usage = {
    input_tokens: 1204,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 18_432,
    output_tokens: 87,
    service_tier: 'standard',
    server_tool_use: null,
  };
  const assistant = (index: number, parent: number, content: unknown[], stop: string | null) => ({
    ...base,
    parentUuid: uuids[parent],
    message: {
      id: `msg_01${index}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    },
    requestId: `req_01${index}`,
    type: 'assistant',
    uuid: uuids[index],
    timestamp: at(index),
  });
  const entries: ClaudeSessionEntry[] = [
    {
      type: 'file-history-snapshot',
      messageId: uuids[0],
      snapshot: { messageId: uuids[0], trackedFileBackups: {}, timestamp: at(0) },
      isSnapshotUpdate: false,
    },
    {
      ...base,
      parentUuid: null,
      type: 'user',
      message: { role: 'user', content: 'Why does `npm test` fail on Node 20?' },
      uuid: uuids[0],
      timestamp: at(0),
      thinkingMetadata: { level: 'high', disabled: false, triggers: [] },
      todos: [],
    },
    assistant(
      1,
      0,
      [{ type: 'thinking', thinking: 'Check the engines field first.', signature: 'EqQBCkYIBxgC' }],
      null,
    ),
    assistant(
      2,
      1,
      [{ type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { file_path: `${cwd}/package.json` } }],
      'tool_use',
    ),
    {
      ...base,
      parentUuid: uuids[2],
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: 'toolu_01A', type: 'tool_result', content: '{\n  "engines": { "node": ">=22" }\n}' }],
      },
      uuid: uuids[3],
      timestamp: at(3),
      toolUseResult: {
        type: 'text',
        file: {
          filePath: `${cwd}/package.json`,
          content: '{ "engines": { "node": ">=22" } }',
          numLines: 3,
          startLine: 1,
          totalLines: 3,
        },
      },
    },
    assistant(
      4,
      3,
      [{ type: 'text', text: 'The `engines` field asks for Node ≥ 22; Node 20 is refused before the tests start.' }],
      'end_turn',
    ),
    {
      ...base,
      parentUuid: null,
      logicalParentUuid: uuids[4],
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: at(5),
      uuid: uuids[5],
      level: 'info',
      compactMetadata: { trigger: 'manual', preTokens: 19_771 },
    },
    {
      ...base,
      parentUuid: uuids[5],
      type: 'user',
      message: {
        role: 'user',
        content: 'This session is being continued from a previous conversation. Summary: engines needs Node 22.',
      },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      uuid: uuids[6],
      timestamp: at(6),
    },
    { type: 'custom-title', customTitle: title, sessionId },
    {
      ...base,
      parentUuid: uuids[6],
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'Can we lower it? Here is the CI log — ünïcödé 👍' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAE=' } },
        ],
      },
      uuid: uuids[7],
      timestamp: at(7),
    },
    assistant(
      8,
      7,
      [
        { type: 'text', text: 'Yes: nothing in the code needs 22.' },
        {
          type: 'tool_use',
          id: 'toolu_01B',
          name: 'Edit',
          input: { file_path: `${cwd}/package.json`, old_string: '>=22', new_string: '>=20', replace_all: false },
        },
      ],
      'tool_use',
    ),
    {
      ...base,
      parentUuid: uuids[8],
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            tool_use_id: 'toolu_01B',
            type: 'tool_result',
            content: [{ type: 'text', text: 'The file has been updated.' }],
            is_error: false,
          },
        ],
      },
      uuid: uuids[9],
      timestamp: at(9),
      toolUseResult: {
        filePath: `${cwd}/package.json`,
        oldString: '>=22',
        newString: '>=20',
        structuredPatch: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ['-  ">=22"', '+  ">=20"'] }],
        userModified: false,
        replaceAll: false,
      },
    },
    {
      ...base,
      parentUuid: uuids[9],
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Edit', command: 'npm run lint' },
      toolUseID: 'toolu_01B',
      parentToolUseID: 'toolu_01B',
      uuid: uuids[10],
      timestamp: at(10),
    },
    assistant(
      11,
      9,
      [{ type: 'text', text: 'Done: `engines` now allows Node 20 (ratio 0.5, cost 1e-7, nothing else changed).' }],
      'end_turn',
    ),
    { type: 'summary', summary: 'Lower the Node engine requirement to 20', leafUuid: uuids[11] },
    { type: 'tag', tag: 'ci', sessionId },
    { type: 'last-prompt', lastPrompt: 'Can we lower it?', sessionId },
  ];
  return { entries, ids: { prompt: uuids[0] as string, answer: uuids[4] as string, followUp: uuids[7] as string } };
}

/** A subagent's transcript (sidechain) of session `sessionId`, agent `agentId`. */
export function subagentTranscript(sessionId: string, agentId: string, cwd: string): ClaudeSessionEntry[] {
  const base = {
    isSidechain: true,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.3',
    gitBranch: 'main',
    agentId,
  };
  const [prompt, answer] = [randomUUID(), randomUUID()];
  return [
    {
      ...base,
      parentUuid: null,
      type: 'user',
      message: { role: 'user', content: 'Find every place that reads process.version.' },
      uuid: prompt,
      timestamp: '2025-10-01T10:00:02.000Z',
    },
    {
      ...base,
      parentUuid: prompt,
      type: 'assistant',
      message: {
        id: 'msg_sub1',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'Only scripts/check.mjs reads it.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 7 },
      },
      uuid: answer,
      timestamp: '2025-10-01T10:00:03.000Z',
    },
  ];
}

/** `entries` cut into batches of the given sizes (the rest in one last batch). */
export function batches<T>(entries: readonly T[], sizes: readonly number[]): T[][] {
  const out: T[][] = [];
  let index = 0;
  for (const size of sizes) {
    if (index >= entries.length) break;
    out.push(entries.slice(index, index + size));
    index += size;
  }
  if (index < entries.length) out.push(entries.slice(index));
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * `value` with what the SDK makes up on each call replaced by placeholders: uuids not in `known`
 * (a fork's new session id and entry uuids; the uuid it gives a title it writes) numbered in order
 * of first appearance, and time stamps not in `known` (the time it stamps on entries it writes).
 * Equal data on both sides then normalizes equal; anything else still differs.
 */
export function normalizeGenerated(value: unknown, known: ReadonlySet<string>): unknown {
  const numbers = new Map<string, string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      if (known.has(node)) return node;
      if (UUID.test(node)) {
        if (!numbers.has(node)) numbers.set(node, `<uuid ${numbers.size + 1}>`);
        return numbers.get(node);
      }
      return ISO.test(node) ? '<time>' : node;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node === 'object' && node !== null)
      return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    return node;
  };
  return walk(value);
}

/** Every string of `value` (to build the `known` set of `normalizeGenerated`). */
export function stringsOf(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const inner of value) stringsOf(inner, into);
  else if (typeof value === 'object' && value !== null)
    for (const inner of Object.values(value)) stringsOf(inner, into);
  return into;
}

/**
 * Rows of `listSessions` made comparable: `lastModified` checked as a positive integer and left out
 * (each store has its own clock), what the SDK makes up normalized (`normalizeGenerated`), in a
 * fixed order (the SDK's own is by `lastModified`).
 */
export function comparableRows(
  rows: readonly { sessionId: string; lastModified: number }[],
  known: ReadonlySet<string> = new Set(),
): unknown[] {
  const checked = rows.map(({ lastModified, ...rest }) => {
    if (!Number.isSafeInteger(lastModified) || lastModified <= 0) throw new Error(`bad lastModified ${lastModified}`);
    return rest;
  });
  // Ordered by each row alone (its made-up ids normalized), then normalized together: one id, one number.
  const order = (row: unknown) => JSON.stringify(normalizeGenerated(row, known));
  return normalizeGenerated(
    checked.sort((a, b) => order(a).localeCompare(order(b))),
    known,
  ) as unknown[];
}
