import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWithoutSqlite } from '../../../test/fixtures/interchange/read-without-sqlite.js';
import { formats } from '../../formats/index.js';
import { importerFor, importerNames, type ImportItem } from '../index.js';
import { elementLines } from './json-items.js';
import { openaiAgentsImporter } from './read.js';
import { IMPORTED_MISSING_RESULT } from '../repair.js';
import type { Message } from '../../message/message.js';
import {
  AWKWARD_SESSION,
  JS_ITEMS,
  OSLO_ITEMS,
  makeAgentsDatabase,
  makeJsItemsFile,
  pythonJson,
} from '../../../test/fixtures/interchange/openai-agents/make-fixtures.js';

type SessionItem = Extract<ImportItem, { kind: 'session' }>;
type ProblemItem = Extract<ImportItem, { kind: 'problem' }>;

let directory: string;
let database: string;
let jsFile: string;
let fromDatabase: ImportItem[];
let fromJs: ImportItem[];

async function readAll(path: string, importer = openaiAgentsImporter()): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of importer.read(path)) out.push(item);
  return out;
}

function sessionOf(items: readonly ImportItem[], record: string): SessionItem {
  const found = items.find((item): item is SessionItem => item.kind === 'session' && item.source.record === record);
  if (found === undefined) throw new Error(`no session ${record}`);
  return found;
}

function problemsOf(items: readonly ImportItem[]): ProblemItem[] {
  return items.filter((item): item is ProblemItem => item.kind === 'problem');
}

function rowIdOf(sessionId: string, text: string): number {
  const db = new Database(database, { readonly: true });
  try {
    const row = db
      .prepare('SELECT id FROM agent_messages WHERE session_id = ? AND message_data LIKE ?')
      .get(sessionId, `%${text}%`) as { id: number };
    return row.id;
  } finally {
    db.close();
  }
}

function summary(messages: readonly Message[]): unknown[] {
  return messages.map((message) => [message.role, message.category, textOf(message)]);
}

function textOf(message: Message): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('|');
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'chatstate-agents-'));
  database = join(directory, 'conversations.db');
  makeAgentsDatabase(database);
  jsFile = join(directory, 'agents-run.json');
  makeJsItemsFile(jsFile);
  fromDatabase = await readAll(database);
  fromJs = await readAll(jsFile);
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('openai-agents importer: the Python SDK SQLiteSession database', () => {
  it('is registered as openai-agents', async () => {
    expect(importerNames()).toContain('openai-agents');
    expect((await importerFor('openai-agents')).system).toBe('openai-agents');
  });

  it('writes message_data as Python json.dumps does (the fixture itself)', () => {
    expect(pythonJson({ a: 'Köln', b: [1, 2] })).toBe('{"a": "K\\u00f6ln", "b": [1, 2]}');
  });

  it('reads a session in id order, pairs calls with their outputs, and keeps ids and UTC row timestamps', () => {
    const oslo = sessionOf(fromDatabase, 'oslo');
    expect(oslo.repairs).toEqual([]);
    const messages = oslo.session.messages;
    expect(summary(messages)).toEqual([
      ['user', 'dialog', 'Weather in Oslo?'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', '4C, cloudy'],
      ['assistant', 'dialog', 'It is 4C in Oslo.'],
      ['system', 'system', 'Grüße aus Köln ☕ — be brief.'],
    ]);
    expect(messages.map((message) => message.id)).toEqual([
      `oslo:row${rowIdOf('oslo', 'Weather in Oslo')}`,
      'fc_01',
      `oslo:row${rowIdOf('oslo', 'function_call_output')}`,
      'msg_02',
      `oslo:row${rowIdOf('oslo', 'developer')}`,
    ]);
    expect(messages[1]?.toolCalls).toEqual([{ id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(messages[2]).toMatchObject({ toolCallId: 'call_9', name: 'get_weather' });
    // Row timestamps are UTC without a zone marker; the last row's clock went back, and id is still the order.
    expect(messages[0]?.timestamp).toBe('2026-08-22T10:15:01.000Z');
    expect(messages[1]?.timestamp).toBe('2026-08-22T10:15:05.000Z');
    expect(messages[4]?.timestamp).toBe('2026-08-22T10:14:59.000Z');
    expect(oslo.session.createdAt).toBe('2026-08-22T10:15:00.000Z');
    expect(oslo.session.updatedAt).toBe('2026-08-22T10:15:07.000Z');
    expect(oslo.session.metadata).toMatchObject({
      imported: { from: 'openai-agents', format: 'python-sqlite', sessionId: 'oslo', table: 'agent_messages' },
    });
    expect(formats.openaiResponses.validate(formats.openaiResponses.to(messages))).toEqual([]);
  });

  it('keeps reasoning, developer roles and unread fields verbatim in metadata', () => {
    const messages = sessionOf(fromDatabase, 'oslo').session.messages;
    expect(messages[1]?.metadata).toEqual({
      openaiAgents: {
        before: [OSLO_ITEMS[1]],
        calls: [{ callId: 'call_9', type: 'function_call', id: 'fc_01', status: 'completed' }],
      },
    });
    expect(messages[3]?.metadata).toEqual({ openaiAgents: { item: { status: 'completed', type: 'message' } } });
    expect(messages[4]?.metadata).toEqual({ openaiAgents: { role: 'developer' } });
  });

  it('repairs loose tool exchanges, keeps unmodelled items and parts, and reports it', () => {
    const loose = sessionOf(fromDatabase, 'loose');
    expect(loose.repairs.map((repair) => repair.kind).sort()).toEqual([
      'kept_in_metadata',
      'missing_tool_result',
      'orphan_tool_result',
    ]);
    expect(summary(loose.session.messages)).toEqual([
      ['user', 'dialog', 'Look:|[image]'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', IMPORTED_MISSING_RESULT],
      ['user', 'dialog', 'Never mind.'],
      ['system', 'context', 'old output'],
      ['assistant', 'dialog', 'I cannot describe that.'],
    ]);
    const [picture, , , , orphan, refusal] = loose.session.messages;
    expect(picture?.content).toEqual([
      { type: 'text', text: 'Look:' },
      { type: 'image', url: 'https://example.com/a.png', detail: 'high' },
    ]);
    expect(picture?.metadata).toHaveProperty(['openaiAgents', 'content']);
    expect(orphan?.metadata).toMatchObject({
      imported: { was: 'tool', why: 'orphan_tool_result', toolCallId: 'call_gone' },
    });
    expect(refusal?.id).toBe('msg_r');
    expect(refusal?.metadata).toMatchObject({
      openaiAgents: {
        before: [{ id: 'ws_1', type: 'web_search_call' }],
        content: [{ refusal: 'I cannot describe that.', type: 'refusal' }],
      },
    });
  });

  it('lists damaged rows by row id and imports the rest of their session, keeping what they held', () => {
    const broken = sessionOf(fromDatabase, 'broken');
    expect(summary(broken.session.messages)).toEqual([
      ['user', 'dialog', 'first'],
      ['assistant', 'dialog', 'last'],
    ]);
    const notJson = rowIdOf('broken', 'trunc');
    const noCallId = rowIdOf('broken', 'lookup');
    const problems = problemsOf(fromDatabase).filter(
      (problem) => problem.message.includes('broken') || problem.source.record?.startsWith('agent_messages:'),
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'CORRUPT', source: { path: database, record: `agent_messages:${notJson}` } }),
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        source: { path: database, record: `agent_messages:${noCallId}` },
      }),
    ]);
    expect(problems[1]?.message).toContain('call id');
    expect(broken.session.metadata['openaiAgents']).toEqual({
      unreadable: [
        { row: notJson, text: '{"content": "trunc' },
        { arguments: '{}', name: 'lookup', type: 'function_call' },
      ],
    });
  });

  it('imports sessions without a session row, and session rows without items', () => {
    const awkward = sessionOf(fromDatabase, AWKWARD_SESSION);
    expect(awkward.session.id).toMatch(/^user-42-chat-[0-9a-f]{12}$/);
    expect(awkward.session.createdAt).toBe('2026-08-22T15:00:00.000Z');
    expect(awkward.session.updatedAt).toBe('2026-08-22T15:00:01.000Z');
    // A row without a time takes the time of the row before it.
    expect(awkward.session.messages.map((message) => message.timestamp)).toEqual([
      '2026-08-22T15:00:00.000Z',
      '2026-08-22T15:00:01.000Z',
      '2026-08-22T15:00:01.000Z',
    ]);
    expect(awkward.session.metadata).toMatchObject({
      imported: { sessionId: AWKWARD_SESSION, note: expect.any(String) },
    });
    const cleared = sessionOf(fromDatabase, 'cleared');
    expect(cleared.session.messages).toEqual([]);
    expect(cleared.session.createdAt).toBe('2026-08-22T13:00:00.000Z');
  });

  it('refuses an encrypted session with UNSUPPORTED', () => {
    const secret = fromDatabase.filter((item) => item.source.record === 'secret');
    expect(secret).toEqual([expect.objectContaining({ kind: 'problem', code: 'UNSUPPORTED' })]);
    expect((secret[0] as ProblemItem).message).toContain('encrypted');
  });

  it('reads tables under the names SQLiteSession was given', async () => {
    const custom = join(directory, 'custom.db');
    const db = new Database(custom);
    db.exec(`CREATE TABLE chat_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE chat_items (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`);
    db.prepare("INSERT INTO chat_items (session_id, message_data) VALUES ('s1', ?)").run(
      pythonJson({ role: 'user', content: 'hi' }),
    );
    db.close();
    await expect(readAll(custom)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('agent_messages'),
    });
    const items = await readAll(
      custom,
      openaiAgentsImporter({ sessionsTable: 'chat_sessions', messagesTable: 'chat_items' }),
    );
    expect(items).toHaveLength(1);
    expect(sessionOf(items, 's1').session.messages[0]?.content).toBe('hi');
    expect(() => openaiAgentsImporter({ messagesTable: 'x; DROP TABLE y' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('openai-agents importer: a JSON array of JS SDK AgentInputItems', () => {
  it('maps messages, calls grouped on one assistant message, results with their shapes, and reasoning kept', () => {
    const run = sessionOf(fromJs, 'agents-run');
    expect(run.session.id).toBe('agents-run');
    expect(summary(run.session.messages)).toEqual([
      ['system', 'system', 'Answer in one line.'],
      ['user', 'dialog', 'Weather in Oslo?'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', '4C in Oslo'],
      ['assistant', 'dialog', '4C in Oslo.'],
      ['user', 'dialog', 'And this?|[image]'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', 'zoomed'],
      ['tool', 'tool_output', IMPORTED_MISSING_RESULT],
      ['assistant', 'dialog', 'Done.'],
    ]);
    const messages = run.session.messages;
    expect(messages[2]?.id).toBe('agents-run:3');
    expect(messages[2]?.metadata).toMatchObject({ openaiAgents: { before: [JS_ITEMS[2]] } });
    expect(messages[3]).toMatchObject({ toolCallId: 'call_9', name: 'get_weather' });
    // A single output object is flattened to its text, and kept as written.
    expect(messages[3]?.metadata).toMatchObject({ openaiAgents: { output: { type: 'text', text: '4C in Oslo' } } });
    expect(messages[4]?.id).toBe('msg_2');
    expect(messages[6]?.toolCalls?.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    expect(messages[9]?.metadata).toMatchObject({ openaiAgents: { before: [JS_ITEMS[10]] } });
    expect(run.repairs.map((repair) => repair.kind).sort()).toEqual(['kept_in_metadata', 'missing_tool_result']);
  });

  it('dates every message by the file (items carry no time) and says so', () => {
    const run = sessionOf(fromJs, 'agents-run');
    const modified = statSync(jsFile).mtime.toISOString();
    expect(run.session.createdAt).toBe(modified);
    expect(run.session.messages[0]?.timestamp).toBe(modified);
    expect(run.session.metadata).toMatchObject({
      imported: { format: 'js-items', messageTimestamps: expect.any(String) },
    });
  });

  it('lists malformed items with their line, imports the rest, and keeps them verbatim', () => {
    const problems = problemsOf(fromJs);
    // Item i of the fixture is on line i + 2.
    expect(problems).toEqual([
      expect.objectContaining({ code: 'INVALID_ARGUMENT', source: { path: jsFile, line: 13, record: 'agents-run' } }),
      expect.objectContaining({ code: 'INVALID_ARGUMENT', source: { path: jsFile, line: 14, record: 'agents-run' } }),
    ]);
    expect(sessionOf(fromJs, 'agents-run').session.metadata['openaiAgents']).toEqual({
      unreadable: [JS_ITEMS[11], 42],
    });
  });

  it('refuses a truncated file with CORRUPT at its line, and a file that is not an array', async () => {
    const truncated = join(directory, 'truncated.json');
    writeFileSync(truncated, '[\n{"role":"user","content":"hi"},\n{"role":"assistant",\n');
    const [problem] = await readAll(truncated);
    expect(problem).toMatchObject({ kind: 'problem', code: 'CORRUPT', source: { path: truncated, line: 4 } });
    const object = join(directory, 'object.json');
    writeFileSync(object, '\n\n{"items": []}');
    expect(await readAll(object)).toEqual([
      expect.objectContaining({
        kind: 'problem',
        code: 'INVALID_ARGUMENT',
        source: expect.objectContaining({ line: 3 }),
      }),
    ]);
    await expect(readAll(join(directory, 'absent.json'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads Python-spelled items in a JSON array too, telling the spellings apart per item', async () => {
    const mixed = join(directory, 'mixed.json');
    makeJsItemsFile(mixed, [
      OSLO_ITEMS[0],
      OSLO_ITEMS[2],
      { type: 'function_call_result', callId: 'call_9', name: 'get_weather', status: 'completed', output: 'js result' },
      { call_id: 'call_9', output: 'python result', type: 'function_call_output' },
    ]);
    const [only] = await readAll(mixed);
    expect(only?.kind).toBe('session');
    const messages = (only as SessionItem).session.messages;
    expect(summary(messages)).toEqual([
      ['user', 'dialog', 'Weather in Oslo?'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', 'js result'],
      ['system', 'context', 'python result'],
    ]);
    expect((only as SessionItem).repairs).toEqual([expect.objectContaining({ kind: 'duplicate_tool_result' })]);
  });

  it('stops at the next session when its signal is aborted', async () => {
    const controller = new AbortController();
    const seen: ImportItem[] = [];
    for await (const item of openaiAgentsImporter().read(database, { signal: controller.signal })) {
      seen.push(item);
      if (item.kind === 'session') controller.abort();
    }
    expect(seen.filter((item) => item.kind === 'session')).toHaveLength(1);
  });

  it('finds the line of each element of a JSON array, strings and nesting aside', () => {
    expect(elementLines('[\n{"a": "x,\\"y"},\n[1,\n2], "s"\n,\n3]')).toEqual([2, 3, 4, 6]);
    expect(elementLines('[]')).toEqual([]);
  });
});

describe('openai-agents importer: without better-sqlite3', () => {
  it('refuses a database with MISSING_DEPENDENCY, and still reads a JSON array', () => {
    const outcome = readWithoutSqlite('openai-agents', database);
    expect(outcome).toMatchObject({ name: 'InvalidInputError', code: 'MISSING_DEPENDENCY' });
    expect(outcome.message).toContain('npm install better-sqlite3');
    expect(readWithoutSqlite('openai-agents', jsFile)).toEqual({ kinds: ['problem', 'problem', 'session'] });
  });
});
