import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importerFor } from '../index.js';
import type { ImportItem } from '../types.js';
import { PROJECT, writeMagentSessions } from '../../../test/fixtures/interchange/magent/make.js';
import { collect } from '../../../test/support/async-iterables.js';
import {
  problemItem,
  sessionItem,
  type SessionItem,
  type ProblemItem,
} from '../../../test/fixtures/interchange/items.js';

let dir: string;
let items: ImportItem[];
const imported = (id: string): SessionItem => sessionItem(items, id);
const problem = (name: string): ProblemItem => problemItem(items, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'magent-'));
  await writeMagentSessions(dir);
  items = await collect((await importerFor('magent')).read(dir));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('magent importer', () => {
  it('reads every generation in the directory (temp files left out) and lists the damaged files', () => {
    expect(
      items
        .filter((item) => item.kind === 'session')
        .map((item) => (item as SessionItem).session.id)
        .sort(),
    ).toEqual([
      'session-20250221-143015',
      'session-20250221-150000',
      'session-20250222-090000',
      'session-20260316-174805',
      'session-20260528-100000-01',
      'session-20260820-101500',
      'session-20260821-090000',
    ]);
    expect(items.filter((item) => item.kind === 'problem')).toHaveLength(3);
  });

  it('quirk 1 (order): G0 messages are stored newest first and come out oldest first', () => {
    const { session } = imported('session-20250221-143015');
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(session.messages[0]?.content).toBe('Which elisp files are here?');
    expect(session.messages[4]?.content).toBe('Two files match — café.el too.');
    expect(session.metadata.magent).toMatchObject({ generation: 'G0' });
  });

  it('quirk 3 (offset without a colon): the save time, given to every message and flagged', () => {
    const { session } = imported('session-20250221-143015');
    expect(session.createdAt).toBe('2025-02-21T22:30:15.000Z');
    expect(new Set(session.messages.map((message) => message.timestamp))).toEqual(
      new Set(['2025-02-21T22:30:15.000Z']),
    );
    expect(session.messages[0]?.metadata.magent).toMatchObject({ timestampDerived: true, idDerived: true });
    expect(imported('session-20250221-150000').session.createdAt).toBe('2025-02-21T09:30:00.000Z');
  });

  it('quirk 4 (embedded tool results): a single tool_result object pairs with its tool_use block', () => {
    const { session, repairs } = imported('session-20250221-143015');
    expect(repairs).toEqual([]);
    expect(session.messages[1]).toMatchObject({
      content: 'Searching.',
      toolCalls: [
        { id: 'toolu_01', name: 'glob', arguments: '{"pattern":"*.el"}' },
        { id: 'toolu_02', name: 'pwd', arguments: '{}' },
      ],
    });
    expect(session.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'toolu_01', content: 'a.el\nb.el' });
  });

  it('quirk 5 (input null): a tool_use without arguments has {}', () => {
    expect(imported('session-20250221-143015').session.messages[1]?.toolCalls?.[1]?.arguments).toBe('{}');
  });

  it('quirk 2 (empty G0 session): messages null means no messages', () => {
    expect(imported('session-20250221-150000').session.messages).toEqual([]);
  });

  it('quirk 4 (orphans): a result whose call was trimmed away is repaired and reported', () => {
    const { session, repairs } = imported('session-20250222-090000');
    expect(session.messages[0]).toMatchObject({ role: 'system', category: 'context', content: 'old output' });
    expect(repairs.map((repair) => repair.kind)).toEqual(['orphan_tool_result']);
  });

  it('quirk 6 (flattened content, G1): kept as text, file time flagged; a string tool result is an orphan', () => {
    const { session, repairs } = imported('session-20260316-174805');
    expect(session.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Run ls'],
      ['system', 'a.txt\nb.txt'],
      ['assistant', 'Two files.'],
    ]);
    expect(repairs.map((repair) => repair.kind)).toEqual(['orphan_tool_result']);
    expect(session.metadata.magent).toMatchObject({
      generation: 'G1',
      timestampsFromFile: true,
      extra: { 'buffer-content': '' },
    });
  });

  it('v2 tool objects: the call each result names is added before them, and reported', () => {
    const { session, repairs } = imported('session-20260528-100000-01');
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(session.messages[1]?.toolCalls).toEqual([
      { id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' },
      { id: 'call_b', name: 'wc', arguments: '{}' },
    ]);
    expect(session.messages[3]).toMatchObject({ toolCallId: 'call_b', name: 'wc', content: '2' });
    expect(repairs.map((repair) => repair.kind)).toEqual(['synthesized_tool_call']);
  });

  it('quirk 9 (scope from the path): project, global and action places, project-root kept', () => {
    expect(imported('session-20260528-100000-01').session.metadata.magent).toMatchObject({
      place: { scope: 'project', projectHash: PROJECT },
      extra: { 'project-root': '/home/u/proj/', scope: 'project' },
    });
    expect(imported('session-20260820-101500').session.metadata.magent).toMatchObject({ place: { scope: 'global' } });
    expect(imported('session-20260821-090000').session.metadata.magent).toMatchObject({
      place: { scope: 'action', action: 'summarize' },
    });
  });

  it('v6 ledger: the turn as user message, tool call and result linked by call-id, ids and epoch times kept', () => {
    const { session, repairs } = imported('session-20260820-101500');
    expect(repairs).toEqual([]);
    expect(session.messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ['item-q1w2e3r4t5y6u7i8o9p0a1s2', 'user', 'List files'],
      ['call_1.call', 'assistant', ''],
      ['call_1', 'tool', 'a.txt'],
    ]);
    expect(session.messages[1]?.toolCalls).toEqual([{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }]);
    expect(session.messages[0]?.timestamp).toBe('2026-08-20T10:15:00.200Z');
    expect(session.createdAt).toBe('2026-08-20T10:15:00.120Z');
    expect(session.updatedAt).toBe('2026-08-20T10:15:07.500Z');
  });

  it('quirk 10 ({}-as-null): empty objects read as absent; a turn without a user item uses its input', () => {
    const { session } = imported('session-20260821-090000');
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant', 'tool']);
    expect(session.messages[0]).toMatchObject({ content: 'Summarize notes', timestamp: '2026-08-21T09:00:00.500Z' });
    expect(session.messages[1]?.content).toEqual([{ type: 'reasoning', text: 'Plan first.' }]);
    expect(session.messages[3]).toMatchObject({ toolCallId: 'call_r', content: 'ENOENT' });
    expect(session.messages[3]?.metadata.magent).toMatchObject({ turnStatus: 'interrupted', error: 'ENOENT' });
  });

  it('damaged files: truncated JSON is CORRUPT, a wrong type INVALID_ARGUMENT at its line, an unknown generation refused', () => {
    expect(problem('bad-truncated.json')).toMatchObject({ code: 'CORRUPT', source: { line: 1 } });
    expect(problem('bad-type.json')).toMatchObject({ code: 'INVALID_ARGUMENT', source: { line: 2 } });
    expect(problem('bad-unknown.json')).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('reads a single file given by path', async () => {
    const read = await collect((await importerFor('magent')).read(join(dir, 'session-20250221-143015.json')));
    expect(read).toEqual([expect.objectContaining({ kind: 'session' })]);
  });
});
