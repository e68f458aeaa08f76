import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWithoutSqlite } from '../../../test/fixtures/interchange/read-without-sqlite.js';
import { ChatstateError } from '../../errors.js';
import { importerFor, importerNames, type ImportItem } from '../index.js';
import { langgraphImporter } from './read.js';
import { IMPORTED_MISSING_RESULT } from '../repair.js';
import { Message } from '../../message/message.js';
import { formats } from '../../formats/index.js';
import {
  AWKWARD_THREAD,
  makeLanggraphDatabase,
  stepTs,
  type LanggraphFixture,
} from '../../../test/fixtures/interchange/langgraph/make-database.js';

type SessionItem = Extract<ImportItem, { kind: 'session' }>;
type ProblemItem = Extract<ImportItem, { kind: 'problem' }>;

let directory: string;
let file: string;
let fixture: LanggraphFixture;
let items: ImportItem[];

async function readAll(path: string, importer = langgraphImporter()): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of importer.read(path)) out.push(item);
  return out;
}

function session(threadId: string): SessionItem {
  const found = items.find((item): item is SessionItem => item.kind === 'session' && item.source.record === threadId);
  if (found === undefined) throw new Error(`no session for ${threadId}`);
  return found;
}

function problems(threadId: string): ProblemItem[] {
  return items.filter((item): item is ProblemItem => item.kind === 'problem' && item.source.record === threadId);
}

function byId(item: SessionItem, id: string): Message {
  const message = item.session.messages.find((candidate) => candidate.id === id);
  if (message === undefined) throw new Error(`no message ${id}`);
  return message;
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'chatstate-langgraph-'));
  file = join(directory, 'checkpoints.db');
  fixture = await makeLanggraphDatabase(file);
  items = await readAll(file);
});

afterAll(() => {
  fixture.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('langgraph importer: a SqliteSaver database written by the real saver', () => {
  it('is registered as langgraph', async () => {
    expect(importerNames()).toContain('langgraph');
    const importer = await importerFor('langgraph');
    expect(importer.system).toBe('langgraph');
    expect(importer.describe).toMatch(/SqliteSaver/);
  });

  it('reads through the WAL: the writer is still open and its commits are in the -wal file', () => {
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(session('weather').session.messages.length).toBeGreaterThan(0);
  });

  it('imports each thread from its newest root checkpoint, with ids, roles, tool calls and results', () => {
    const weather = session('weather');
    expect(weather.repairs).toEqual([]);
    expect(weather.session.id).toBe('weather');
    const messages = weather.session.messages;
    expect(messages.map((message) => [message.id, message.role, message.category])).toEqual([
      ['sys-1', 'system', 'system'],
      ['h-1', 'user', 'dialog'],
      ['ai-1', 'assistant', 'dialog'],
      ['tool-1', 'tool', 'tool_output'],
      ['ai-2', 'assistant', 'dialog'],
    ]);
    expect(byId(weather, 'ai-1').toolCalls).toEqual([
      { id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(byId(weather, 'tool-1')).toMatchObject({
      toolCallId: 'call_w1',
      name: 'get_weather',
      content: '4C, cloudy',
    });
    expect(weather.session.metadata).toMatchObject({
      imported: {
        from: 'langgraph',
        threadId: 'weather',
        checkpointId: fixture.newest['weather'],
        channel: 'messages',
      },
    });
    // The subgraph's partial view (a message "sub-1") is not part of the conversation.
    expect(messages.some((message) => message.id === 'sub-1')).toBe(false);
    // The session is valid for a provider as it stands.
    expect(formats.openaiChat.validate(formats.openaiChat.to(messages))).toEqual([]);
  });

  it('dates each message by the first checkpoint that held it, and the session by its first and newest checkpoints', () => {
    const weather = session('weather');
    // Steps: input -1, then 0 (system, human), 1 (+ai-1), 2 (+tool-1), 3 (+ai-2).
    expect(byId(weather, 'sys-1').timestamp).toBe(stepTs(0));
    expect(byId(weather, 'h-1').timestamp).toBe(stepTs(0));
    expect(byId(weather, 'ai-1').timestamp).toBe(stepTs(1));
    expect(byId(weather, 'tool-1').timestamp).toBe(stepTs(2));
    expect(byId(weather, 'ai-2').timestamp).toBe(stepTs(3));
    // The input checkpoint (step -1) began the thread.
    expect(weather.session.createdAt).toBe(stepTs(-1));
    expect(weather.session.updatedAt).toBe(stepTs(3));
  });

  it('keeps what chatstate has no field for verbatim in metadata, without the serializer sentinels', () => {
    const weather = session('weather');
    expect(byId(weather, 'ai-1').metadata).toEqual({
      langgraph: {
        class: 'AIMessage',
        usage_metadata: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
        response_metadata: { model_name: 'gpt-test', finish_reason: 'tool_calls' },
      },
    });
    expect(byId(weather, 'ai-2').metadata).toEqual({
      langgraph: { class: 'AIMessage', additional_kwargs: { refusal: null } },
    });
    const chunk = byId(session('loose'), 'ai-chunk');
    expect(chunk.metadata['langgraph']).not.toHaveProperty('usage_metadata');
    expect(chunk.metadata['langgraph']).toMatchObject({ class: 'AIMessageChunk' });
  });

  it('maps content blocks it models and keeps the original blocks beside them when one is not', () => {
    const loose = session('loose');
    const picture = byId(loose, 'h-pic');
    expect(picture.name).toBe('ann');
    expect(picture.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
    ]);
    expect(picture.metadata['langgraph']).toHaveProperty('content');
    const chunk = byId(loose, 'ai-chunk');
    expect(chunk.content).toEqual([{ type: 'text', text: 'A cat ' }]);
    expect(chunk.metadata['langgraph']).toMatchObject({
      content: [
        { type: 'text', text: 'A cat ' },
        { type: 'tool_use', id: 'tu_1', name: 'zoom', input: { level: 2 } },
      ],
    });
  });

  it('repairs loose tool exchanges with repairToolPairs and reports each repair', () => {
    const loose = session('loose');
    const kinds = loose.repairs.map((repair) => repair.kind).sort();
    expect(kinds).toEqual([
      'empty_message',
      'missing_tool_result',
      'orphan_tool_result',
      'remove_message',
      'unknown_role',
    ]);
    const messages = loose.session.messages;
    const callAt = messages.findIndex((message) => message.id === 'ai-call');
    expect(messages[callAt + 1]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_lost',
      content: IMPORTED_MISSING_RESULT,
    });
    const orphan = byId(loose, 'tool-orphan');
    expect(orphan).toMatchObject({ role: 'system', category: 'context', content: 'the old result' });
    expect(orphan.metadata).toMatchObject({
      langgraph: { class: 'ToolMessage', status: 'error' },
      imported: { was: 'tool', why: 'orphan_tool_result', toolCallId: 'call_trimmed' },
    });
  });

  it('keeps an unknown speaker as context, gives an id-less message a derived id, and keeps skipped messages in metadata', () => {
    const loose = session('loose');
    expect(byId(loose, 'chat-critic')).toMatchObject({
      role: 'system',
      category: 'context',
      content: 'Looks fine to me.',
      metadata: { langgraph: { class: 'ChatMessage', role: 'critic' } },
    });
    const noId = loose.session.messages.find((message) => message.content === 'no id on this one');
    expect(noId?.id).toBe('loose:6');
    expect(noId?.timestamp).toBe(loose.session.updatedAt);
    const unplaced = (loose.session.metadata['langgraph'] as { unplaced: unknown[] }).unplaced;
    expect(unplaced).toHaveLength(2);
    expect(JSON.stringify(unplaced)).toContain('RemoveMessage');
    expect(JSON.stringify(unplaced)).toContain('ai-empty');
  });

  it('adds the writes pending on the newest checkpoint (flagged) and keeps the interrupt', () => {
    const waiting = session('waiting');
    const asked = byId(waiting, 'ai-ask');
    expect(asked.metadata).toMatchObject({ langgraph: { pending: true } });
    expect(asked.toolCalls?.[0]?.id).toBe('call_del');
    expect(waiting.session.metadata).toMatchObject({
      imported: { pendingWrites: 1 },
      langgraph: { interrupts: [[{ value: 'Approve deletion?', id: 'int-1' }]] },
    });
    // The approval never came: its call gets a result saying so.
    expect(waiting.repairs.map((repair) => repair.kind)).toEqual(['missing_tool_result']);
  });

  it('imports the input of a run that never started, flagged', () => {
    const unstarted = session('unstarted');
    expect(unstarted.session.messages).toHaveLength(1);
    expect(unstarted.session.messages[0]).toMatchObject({
      id: 'in-1',
      role: 'user',
      content: 'Hello?',
      metadata: { langgraph: { input: true } },
    });
    expect(unstarted.session.metadata['imported']).toHaveProperty('input');
  });

  it('reads the Python constructor path, the stored form, dicts, tuples and legacy function calls', () => {
    const forms = session(AWKWARD_THREAD);
    expect(forms.session.id).toMatch(/^user-42-thread-1-[0-9a-f]{12}$/);
    expect(forms.session.metadata).toMatchObject({ imported: { threadId: AWKWARD_THREAD } });
    const messages = forms.session.messages;
    expect(messages.map((message) => [message.role, Message.text(message)])).toEqual([
      ['user', 'From Python'],
      ['assistant', 'Stored form'],
      ['user', 'A dict'],
      ['assistant', 'A tuple'],
      ['assistant', ''],
      ['tool', 'found x'],
      ['system', expect.stringContaining('Deep thoughts')],
      ['user', 'Long name'],
    ]);
    expect(messages[0]?.metadata).toMatchObject({
      langgraph: { path: ['langchain', 'schema', 'messages', 'HumanMessage'] },
    });
    expect(messages[1]?.metadata).toMatchObject({ langgraph: { class: 'ai', additional_kwargs: { x: 1 } } });
    expect(messages[4]?.toolCalls).toEqual([{ id: 'ai-legacy-function_call', name: 'lookup', arguments: '{"q":"x"}' }]);
    expect(messages[5]).toMatchObject({ toolCallId: 'ai-legacy-function_call', name: 'lookup' });
    // What chatstate refuses is kept as a context message holding the source's JSON, and reported.
    expect(messages[6]).toMatchObject({ id: 'deep-1', category: 'context' });
    expect(forms.repairs).toEqual([expect.objectContaining({ kind: 'unreadable_message', messageId: 'deep-1' })]);
    expect(messages[7]?.name).toBeUndefined();
    expect(messages[7]?.metadata).toMatchObject({ langgraph: { name: 'n'.repeat(300) } });
  });

  it('lists a damaged thread and a Python (msgpack) thread as problems, beside the good ones', () => {
    expect(problems('damaged')).toEqual([
      expect.objectContaining({ kind: 'problem', code: 'CORRUPT', source: { path: file, record: 'damaged' } }),
    ]);
    expect(problems('damaged')[0]?.message).toContain(fixture.newest['damaged']);
    expect(problems('python')).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED', message: expect.stringContaining('msgpack') }),
    ]);
    const sessions = items.filter((item) => item.kind === 'session').map((item) => item.source.record);
    expect(sessions.sort()).toEqual([AWKWARD_THREAD, 'loose', 'text-column', 'unstarted', 'waiting', 'weather'].sort());
  });

  it('lists a damaged pending write as a problem and imports its thread', () => {
    expect(problems('waiting')).toEqual([
      expect.objectContaining({ code: 'CORRUPT', message: expect.stringContaining('task-broken') }),
    ]);
    expect(session('waiting').session.messages.map((message) => message.id)).toContain('ai-ask');
  });

  it('refuses a thread whose list holds something that is no message, naming where', () => {
    expect(problems('not-messages')).toEqual([
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('messages[1]') }),
    ]);
  });

  it('reads TEXT columns as well as BLOBs, and makes a repeated message id unique (reported)', () => {
    const text = session('text-column');
    expect(text.session.messages.map((message) => [message.id, message.content])).toEqual([
      ['same', 'once'],
      ['same.dup2', 'twice'],
    ]);
    expect(text.repairs).toEqual([expect.objectContaining({ kind: 'duplicate_message_id', messageId: 'same.dup2' })]);
  });

  it('reads the conversation from another channel when told, and says when the channel is absent', async () => {
    const other = await readAll(file, langgraphImporter({ channel: 'history' }));
    const weather = other.find((item) => item.source.record === 'weather');
    expect(weather).toMatchObject({
      kind: 'problem',
      code: 'NOT_FOUND',
      message: expect.stringContaining('channel option'),
    });
    expect(() => langgraphImporter({ channel: '' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('stops at the next thread when its signal is aborted', async () => {
    const controller = new AbortController();
    const seen: ImportItem[] = [];
    for await (const item of langgraphImporter().read(file, { signal: controller.signal })) {
      seen.push(item);
      controller.abort();
    }
    expect(seen).toHaveLength(1);
  });
});

describe('langgraph importer: sources that are not a SqliteSaver database', () => {
  it('refuses a missing file with NOT_FOUND, a file that is not SQLite with CORRUPT, and another database with INVALID_ARGUMENT', async () => {
    await expect(readAll(join(directory, 'absent.db'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const text = join(directory, 'notes.db');
    writeFileSync(text, 'just some text, not a database');
    await expect(readAll(text)).rejects.toMatchObject({ code: 'CORRUPT' });
    const other = join(directory, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)');
    db.close();
    const error = await readAll(other).catch((caught: unknown) => caught);
    expect(ChatstateError.hasCode(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('no checkpoints table');
  });

  it('refuses a database whose pages are damaged with CORRUPT', async () => {
    const damaged = join(directory, 'damaged.db');
    const db = new Database(damaged);
    db.exec(
      'CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, type TEXT, checkpoint BLOB)',
    );
    db.close();
    // Keep the header, overwrite the schema page.
    const bytes = Buffer.alloc(8192, 0xab);
    Buffer.from('SQLite format 3\0').copy(bytes);
    writeFileSync(damaged, bytes);
    await expect(readAll(damaged)).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe('langgraph importer: without better-sqlite3', () => {
  it('is MISSING_DEPENDENCY naming the package to install', () => {
    const outcome = readWithoutSqlite('langgraph', file);
    expect(outcome).toMatchObject({ name: 'InvalidInputError', code: 'MISSING_DEPENDENCY' });
    expect(outcome.message).toContain('npm install better-sqlite3');
  });
});
