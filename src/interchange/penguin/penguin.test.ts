import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { exporterFor, importerFor, importerNames, exporterNames } from '../index.js';
import type { ImportItem } from '../types.js';
import {
  AGENT,
  BACKUP_ONLY,
  CLEAN,
  DOC_ERA,
  FROM_BACKUP,
  LAST,
  NEXT,
  RECOVERY,
  ROOT,
  TRUNCATED,
  UNSAVED_RECOVERY,
  WRONG_TYPES,
  dumpPython,
  cleanSession,
  writePenguinDirectory,
} from '../../../test/fixtures/interchange/penguin/make.js';
import { collect, each } from '../../../test/support/async-iterables.js';
import { type SessionItem, type ProblemItem } from '../../../test/fixtures/interchange/items.js';

const ZONE = 'America/New_York';
let dir: string;
let items: ImportItem[];

const sessions = () => items.filter((item): item is SessionItem => item.kind === 'session');
const problems = () => items.filter((item): item is ProblemItem => item.kind === 'problem');
const imported = (id: string): SessionItem => {
  const found = sessions().find((item) => item.session.id === id);
  if (found === undefined) throw new Error(`no session ${id}`);
  return found;
};
const byId = (session: Session, id: string): Message => {
  const found = session.messages.find((message) => message.id === id);
  if (found === undefined) throw new Error(`no message ${id}`);
  return found;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'penguin-'));
  await writePenguinDirectory(join(dir, 'conversations'));
  const importer = await importerFor('penguin');
  items = await collect(importer.read(join(dir, 'conversations'), { timeZone: ZONE }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('penguin importer', () => {
  it('is registered for import and export (and the legacy layout)', () => {
    expect(importerNames()).toContain('penguin');
    expect(exporterNames()).toEqual(expect.arrayContaining(['penguin', 'penguin-legacy']));
  });

  it('imports every readable session, agents included, and lists the bad ones', () => {
    expect(
      sessions()
        .map((item) => item.session.id)
        .sort(),
    ).toEqual([ROOT, NEXT, LAST, CLEAN, DOC_ERA, FROM_BACKUP, BACKUP_ONLY, RECOVERY, `${AGENT}.${CLEAN}`].sort());
    expect(problems().map((item) => [item.code, item.source.record])).toEqual(
      expect.arrayContaining([
        ['CORRUPT', TRUNCATED],
        ['INVALID_ARGUMENT', WRONG_TYPES],
        ['NOT_FOUND', UNSAVED_RECOVERY],
      ]),
    );
    expect(problems()).toHaveLength(3);
  });

  it('damaged file: truncated JSON is CORRUPT at the line where it ends', () => {
    const problem = problems().find((item) => item.source.record === TRUNCATED) as ProblemItem;
    expect(problem.source.path).toMatch(/session_20250413_120000_7e0c0000\.json$/);
    expect(problem.source.line).toBeGreaterThan(1);
  });

  it('damaged file: a wrong type is INVALID_ARGUMENT at the line of its key', () => {
    const problem = problems().find((item) => item.source.record === WRONG_TYPES) as ProblemItem;
    expect(problem.message).toContain('"messages" must be an array');
    expect(problem.source.line).toBe(9);
  });

  it('naive local timestamps are read in the given zone, the original string kept', () => {
    const { session } = imported(ROOT);
    expect(session.createdAt).toBe('2025-04-10T13:15:02.481Z');
    expect(session.updatedAt).toBe('2025-04-10T14:02:40.002Z');
    const prompt = byId(session, 'msg_a0000001');
    expect(prompt.timestamp).toBe('2025-04-10T13:15:02.481Z');
    expect(prompt.metadata.penguin).toMatchObject({ timestamp: '2025-04-10T09:15:02.481203' });
    // Without microseconds (§1 timestamps table).
    expect(byId(session, 'msg_a0000002').timestamp).toBe('2025-04-10T13:15:02.000Z');
    expect(session.metadata.penguin).toMatchObject({ timeZone: ZONE });
  });

  it('importing the same directory twice gives equal sessions (ids, times and repairs included)', async () => {
    const again = await collect((await importerFor('penguin')).read(join(dir, 'conversations'), { timeZone: ZONE }));
    expect(again.map((item) => (item.kind === 'session' ? { ...item, session: item.session.toJSON() } : item))).toEqual(
      items.map((item) => (item.kind === 'session' ? { ...item, session: item.session.toJSON() } : item)),
    );
  });

  it('the process zone is the default', async () => {
    const importer = await importerFor('penguin');
    const again = await collect(importer.read(join(dir, 'conversations')));
    const clean = again.find((item) => item.kind === 'session' && item.session.id === CLEAN) as SessionItem;
    const local = new Date(2025, 3, 9, 8, 0, 0).toISOString();
    expect(clean.session.createdAt).toBe(local);
  });

  it('an unknown time zone is INVALID_ARGUMENT', async () => {
    const importer = await importerFor('penguin');
    await expect(collect(importer.read(dir, { timeZone: 'Mars/Olympus' }))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('maps the category names: SYSTEM > CONTEXT > DIALOG > SYSTEM_OUTPUT', () => {
    const { session } = imported(ROOT);
    expect(byId(session, 'msg_a0000001').category).toBe('system');
    expect(byId(session, 'msg_a0000002').category).toBe('context');
    expect(byId(session, 'msg_a0000003').category).toBe('dialog');
    expect(byId(session, 'msg_77aa01fe').category).toBe('tool_output');
  });

  it('quirk 2 (category spelling): lower-case and numeric categories, originals kept', () => {
    const { session } = imported(ROOT);
    expect(byId(session, 'msg_a0000007')).toMatchObject({
      category: 'dialog',
      metadata: { penguin: { categoryRaw: 'dialog' } },
    });
    expect(byId(session, 'msg_a0000008')).toMatchObject({
      category: 'dialog',
      metadata: { penguin: { categoryRaw: 3 } },
    });
  });

  it('ERROR and INTERNAL are mapped by role and kept in penguin.category', () => {
    const { session } = imported(ROOT);
    expect(byId(session, 'msg_a0000009')).toMatchObject({
      category: 'system',
      metadata: { penguin: { category: 'ERROR' } },
    });
    expect(byId(session, 'msg_a000000a')).toMatchObject({
      category: 'system',
      metadata: { visibility: 'internal', penguin: { category: 'INTERNAL' } },
    });
  });

  it('quirk 3 (required keys): a message without category is imported, inferred from its role, and reported', () => {
    const item = imported(ROOT);
    const message = byId(item.session, 'msg_a000000e');
    expect(message).toMatchObject({ role: 'system', category: 'system', content: '{"note":"a dict"}' });
    expect(message.metadata.penguin).toMatchObject({ content: { note: 'a dict' } });
    expect(item.repairs.map((repair) => repair.kind)).toContain('missing_category');
  });

  it('tool calls come from metadata.tool_calls and results pair by tool_call_id', () => {
    const { session } = imported(ROOT);
    const call = byId(session, 'msg_5e0a91c2');
    expect(call.toolCalls).toEqual([
      { id: 'call_1b2c3d4e', name: 'read_file', arguments: '{"path":"notes.txt"}' },
      { id: 'call_nores', name: 'list_dir', arguments: '{}' },
    ]);
    expect(call.metadata.tool_calls).toBeUndefined();
    expect(byId(session, 'msg_77aa01fe')).toMatchObject({
      role: 'tool',
      toolCallId: 'call_1b2c3d4e',
      name: 'read_file',
      metadata: { action_type: 'read_file', status: 'completed' },
    });
  });

  it('quirk 7 (trimmed history): orphaned results and unanswered calls are repaired and reported', () => {
    const item = imported(ROOT);
    const orphan = byId(item.session, 'msg_0rphan00');
    expect(orphan).toMatchObject({ role: 'system', category: 'context', content: 'stale output' });
    const kinds = item.repairs.map((repair) => repair.kind);
    expect(kinds).toEqual(expect.arrayContaining(['orphan_tool_result', 'missing_tool_result']));
    expect(item.repairs.find((repair) => repair.kind === 'missing_tool_result')?.message).toContain('call_nores');
    // The added result has an id and a time from its call: importing twice gives the same session.
    const added = item.session.messages.find((message) => message.toolCallId === 'call_nores') as Message;
    expect(added).toMatchObject({
      id: 'msg_5e0a91c2.r1',
      timestamp: byId(item.session, 'msg_5e0a91c2').timestamp,
    });
    expect(item.repairs.find((repair) => repair.kind === 'missing_tool_result')?.messageId).toBe(added.id);
  });

  it('an id used twice in a session is renamed on its second use, and reported', () => {
    const item = imported(ROOT);
    const copy = item.session.messages.at(-1) as Message;
    expect(copy.content).toBe('a copy with a used id');
    expect(copy.id).toMatch(/^msg_a0000003\.\d+$/);
    expect(item.repairs).toContainEqual(expect.objectContaining({ kind: 'duplicate_message_id', messageId: copy.id }));
    expect(new Set(item.session.messages.map((message) => message.id)).size).toBe(item.session.messages.length);
  });

  it('quirk 5 (missing ids and timestamps): deterministic ids, flagged', () => {
    const { session } = imported(ROOT);
    const message = byId(session, `${ROOT}.10`);
    expect(message.content).toBe('no id, no time');
    expect(message.metadata.penguin).toMatchObject({ idDerived: true, timestampDerived: true });
    // The previous message's time.
    expect(message.timestamp).toBe(byId(session, 'msg_a000000a').timestamp);
  });

  it('quirk 1 (unknown keys): kept in metadata, in a message and at the top level', () => {
    const { session } = imported(ROOT);
    expect(byId(session, 'msg_a000000c').metadata.penguin).toMatchObject({ extra: { ui_hint: 'bold' } });
    expect(session.metadata.penguin).toMatchObject({ extra: { ui_state: { pinned: true } } });
  });

  it('content parts: text, images, Penguin image_path, the trimmer placeholder and non-dict items kept', () => {
    const message = byId(imported(ROOT).session, 'msg_a000000d');
    expect(message.content).toEqual([
      { type: 'text', text: 'Look at this' },
      { type: 'raw', provider: 'openaiChat', value: { type: 'image_url', image_path: '/home/u/shot.png' } },
      { type: 'text', text: '[Image removed to save tokens]' },
      { type: 'image', url: 'https://example.com/b.png' },
      { type: 'raw', provider: 'openaiChat', value: 42 },
    ]);
    expect(message.metadata).toMatchObject({
      image_replaced: true,
      penguin: { parts: { '2': { metadata: { original_image_reference: 'https://example.com/a.png' } } } },
    });
  });

  it('ASCII-escaped text (surrogate pairs included) reads back as the original characters', () => {
    expect(byId(imported(ROOT).session, 'msg_a0000002').content).toBe('Project notes: café in Lisboa 😀');
  });

  it('record lists and index entries are kept verbatim', () => {
    const penguin = imported(ROOT).session.metadata.penguin as Record<string, unknown>;
    expect(penguin.records).toMatchObject({
      tool_call_records: [expect.objectContaining({ call_id: 'call_1b2c3d4e' })],
    });
    expect(penguin.index).toMatchObject({ title: 'Session 3fa2c19b' });
    expect(penguin.metadata).toMatchObject({ title: 'Lisbon trip' });
  });

  it('continuations become continuedFrom / continuedTo / continuationIndex (quirk 11: the depth)', () => {
    expect(imported(ROOT).session.metadata).toMatchObject({ continuedTo: NEXT });
    expect(imported(ROOT).session.metadata.continuedFrom).toBeUndefined();
    expect(imported(NEXT).session.metadata).toMatchObject({
      continuedFrom: ROOT,
      continuedTo: LAST,
      continuationIndex: 1,
    });
    // Penguin writes continuation_index 1 at every link; chatstate's is the depth.
    expect(imported(LAST).session.metadata).toMatchObject({ continuedFrom: NEXT, continuationIndex: 2 });
  });

  it('quirk 12 (chains): copied SYSTEM and CONTEXT messages and the marker are marked, not dropped', () => {
    const { session } = imported(NEXT);
    const [prompt, notes, marker, question] = session.messages as Message[];
    expect(prompt?.metadata.penguin).toMatchObject({ copiedFrom: ROOT });
    expect(notes?.metadata.penguin).toMatchObject({ copiedFrom: ROOT });
    expect(marker).toMatchObject({ role: 'system', category: 'system' });
    expect(marker?.metadata).toMatchObject({ transition: true, continuedFrom: ROOT, type: 'session_transition' });
    expect((question?.metadata.penguin as Record<string, unknown> | undefined)?.copiedFrom).toBeUndefined();
  });

  it('recovery sessions: recoveredFrom, and an unsaved one is listed, not invented', () => {
    expect(imported(RECOVERY).session.metadata).toMatchObject({ recoveredFrom: `session_${TRUNCATED.slice(8)}` });
    const unsaved = problems().find((item) => item.source.record === UNSAVED_RECOVERY) as ProblemItem;
    expect(unsaved.message).toContain('recovery of');
  });

  it('quirk 8 (backups): a damaged primary falls back to its .bak, reported', () => {
    const item = imported(FROM_BACKUP);
    expect(item.source.path).toMatch(/\.json\.bak$/);
    expect(item.repairs[0]).toMatchObject({ kind: 'restored_from_backup' });
    expect(item.repairs[0]?.message).toContain('damaged');
    expect(item.session.metadata.penguin).toMatchObject({ restoredFromBackup: { line: expect.any(Number) } });
  });

  it('quirk 8 (backups): a missing primary falls back to its .bak; a valid primary wins over its backup', () => {
    expect(imported(BACKUP_ONLY).repairs[0]?.message).toContain('missing');
    expect(imported(ROOT).source.path).toMatch(/\.json$/);
    expect(imported(ROOT).session.messages.length).toBeGreaterThan(0);
  });

  it('quirk 13 (per-agent directories): ids qualified by the agent, tool-results ignored', () => {
    const item = imported(`${AGENT}.${CLEAN}`);
    expect(item.session.agentId).toBe(AGENT);
    expect(item.session.metadata.penguin).toMatchObject({ sessionId: CLEAN, agentDirectory: AGENT });
    expect(item.session.messages[0]?.metadata.penguin).toMatchObject({ agentId: AGENT });
  });

  it('quirk 6 (order): file order is kept although timestamps go back', () => {
    const [prompt, notes] = imported(ROOT).session.messages as Message[];
    expect([prompt?.id, notes?.id]).toEqual(['msg_a0000001', 'msg_a0000002']);
    expect(Date.parse(notes?.timestamp ?? '')).toBeLessThan(Date.parse(prompt?.timestamp ?? ''));
  });

  it('quirk 9 (index drift): a file without an index entry imports; a stale index title is kept as it was', () => {
    expect(imported(DOC_ERA).session.metadata.penguin).not.toHaveProperty('index');
    expect(imported(NEXT).session.metadata.penguin).toMatchObject({ index: { title: 'Continuation of 3fa2c19b' } });
  });

  it('quirk 14 (two message shapes): seed-era seven-key messages import', () => {
    const { session } = imported(DOC_ERA);
    expect(session.messages.map((message) => message.content)).toEqual(['Hello from 2023', 'Hi.']);
  });

  it('stops at the next item when the signal aborts', async () => {
    const importer = await importerFor('penguin');
    const controller = new AbortController();
    const seen: ImportItem[] = [];
    for await (const item of importer.read(join(dir, 'conversations'), { timeZone: ZONE, signal: controller.signal })) {
      seen.push(item);
      controller.abort();
    }
    expect(seen).toHaveLength(1);
  });

  it('a path that does not exist is NOT_FOUND saying what was expected', async () => {
    const importer = await importerFor('penguin');
    const absent = join(dir, 'absent');
    await expect(collect(importer.read(absent))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `penguin: ${absent} does not exist; expected a Penguin conversations/ directory, or one of its session files (<id>.json)`,
    });
  });
});

describe('penguin importer: one session file (issue 21: it was ENOTDIR, "not readable")', () => {
  const read = async (...path: string[]): Promise<ImportItem[]> =>
    collect((await importerFor('penguin')).read(join(dir, 'conversations', ...path), { timeZone: ZONE }));
  /** What importing the whole directory gave for the same session, to compare. */
  const fromDirectory = (id: string) => {
    const { session, repairs } = imported(id);
    return { session: session.toJSON(), repairs };
  };

  it('imports the session exactly as the directory import does (index entry and chain depth included)', async () => {
    for (const id of [ROOT, NEXT, CLEAN, DOC_ERA]) {
      const [item, ...rest] = await read(`${id}.json`);
      expect(rest).toEqual([]);
      if (item?.kind !== 'session') throw new Error(`${id}: ${JSON.stringify(item)}`);
      expect({ session: item.session.toJSON(), repairs: item.repairs }).toEqual(fromDirectory(id));
    }
  });

  it("a file of an agent's subdirectory gets the agent's id, as in the directory import", async () => {
    const [item] = await read(AGENT, `${CLEAN}.json`);
    if (item?.kind !== 'session') throw new Error(JSON.stringify(item));
    expect(item.session.toJSON()).toEqual(imported(`${AGENT}.${CLEAN}`).session.toJSON());
  });

  it('a damaged file falls back to its .bak, as in the directory; a .bak given is read as it is', async () => {
    const [restored] = await read(`${FROM_BACKUP}.json`);
    if (restored?.kind !== 'session') throw new Error(JSON.stringify(restored));
    expect(restored.session.toJSON()).toEqual(imported(FROM_BACKUP).session.toJSON());
    expect(restored.repairs[0]).toMatchObject({ kind: 'restored_from_backup' });
    const [backup] = await read(`${BACKUP_ONLY}.json.bak`);
    expect(backup).toMatchObject({ kind: 'session', session: { id: BACKUP_ONLY } });
  });

  it('a file without a backup that is not a session is one problem saying what a session file is', async () => {
    const [truncated, ...rest] = await read(`${TRUNCATED}.json`);
    expect(rest).toEqual([]);
    expect(truncated).toMatchObject({ kind: 'problem', code: 'CORRUPT', source: { record: TRUNCATED } });
    const other = join(dir, 'notes.txt');
    await writeFile(other, 'plain words');
    const items = await collect((await importerFor('penguin')).read(other));
    expect(items).toEqual([
      {
        kind: 'problem',
        code: 'CORRUPT',
        message: expect.stringMatching(
          /^Not valid JSON: .*; expected a Penguin session file \(<id>\.json: a JSON object with "id" and "messages"\)$/,
        ),
        source: { path: other, line: 1, record: 'notes' },
      },
    ]);
    const array = join(dir, 'array.json');
    await writeFile(array, '[1, 2]');
    expect(await collect((await importerFor('penguin')).read(array))).toEqual([
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message:
          'A session file must hold a JSON object; expected a Penguin session file (<id>.json: a JSON object with "id" and "messages")',
      }),
    ]);
  });
});

describe('penguin exporter', () => {
  // Messages a pairing repair made or changed are made again by the next import's repair: compared apart.
  const comparable = (session: Session) =>
    session.messages
      .filter((message) => message.metadata.imported === undefined)
      .map((message) => ({
        id: message.id,
        role: message.role,
        category: message.category,
        content: message.content,
        timestamp: message.timestamp,
        toolCalls: message.toolCalls,
        toolCallId: message.toolCallId,
      }));

  it('round trip: importing an export gives back the sessions, ids, timestamps and categories', async () => {
    const out = join(dir, 'exported');
    const exporter = await exporterFor('penguin');
    const summary = await exporter.write(each(sessions().map((item) => item.session)), out);
    expect(summary.sessions).toBe(sessions().length);
    expect(summary.files.at(-1)).toMatch(/session_index\.json$/);
    expect(summary.files).toContain(join(AGENT, `${CLEAN}.json`));
    const importer = await importerFor('penguin');
    const back = await collect(importer.read(out, { timeZone: ZONE }));
    expect(back.filter((item) => item.kind === 'problem')).toEqual([]);
    for (const item of sessions()) {
      const again = back.find(
        (other) => other.kind === 'session' && other.session.id === item.session.id,
      ) as SessionItem;
      expect(again, item.session.id).toBeDefined();
      expect(comparable(again.session)).toEqual(comparable(item.session));
      if (item.session.id !== ROOT) expect(again.session.messages).toHaveLength(item.session.messages.length);
      expect(again.session.createdAt).toBe(item.session.createdAt);
      expect(again.session.updatedAt).toBe(item.session.updatedAt);
      expect(again.session.agentId).toBe(item.session.agentId);
      for (const key of ['continuedFrom', 'continuedTo', 'continuationIndex', 'recoveredFrom'])
        expect(again.session.metadata[key], key).toEqual(item.session.metadata[key]);
    }
  });

  it('a clean Penguin session exports byte for byte as Penguin wrote it', async () => {
    const out = join(dir, 'clean');
    const clean = imported(CLEAN).session;
    await (await exporterFor('penguin')).write(each([clean]), out);
    expect(await readFile(join(out, `${CLEAN}.json`), 'utf8')).toBe(dumpPython(cleanSession()));
    const index = JSON.parse(await readFile(join(out, 'session_index.json'), 'utf8')) as Record<string, unknown>;
    expect(index[CLEAN]).toEqual({
      created_at: '2025-04-09T08:00:00.000000',
      last_active: '2025-04-09T08:01:00.500000',
      message_count: 5,
      token_count: 0,
      title: 'Clean',
    });
  });

  it('a chatstate session round-trips: owner, variables, metadata, names and token counts under metadata.chatstate', async () => {
    const native = Session.create({
      id: 'native-1',
      agentId: 'planner',
      userId: 'u-7',
      variables: { harbour: 'Leith' },
      metadata: { topic: 'tides' },
      messages: [
        Message.system('Be brief.'),
        Message.user('Tide?', { name: 'ana', tokens: { estimate: 3 } }),
        Message.assistant(
          [
            { type: 'reasoning', text: 'think' },
            { type: 'text', text: 'Checking.' },
          ],
          {
            toolCalls: [{ id: 'c1', name: 'tide', arguments: { port: 'Leith' } }],
          },
        ),
        Message.tool('c1', 'High water 12:10', { name: 'tide' }),
        Message.assistant('Noon.'),
      ],
    });
    const out = join(dir, 'native');
    const summary = await (await exporterFor('penguin')).write(each([native]), out);
    expect(summary.warnings).toEqual([
      expect.objectContaining({ sessionId: 'native-1', message: expect.stringContaining('reasoning part') }),
    ]);
    const file = JSON.parse(await readFile(join(out, 'native-1.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual([
      'id',
      'created_at',
      'last_active',
      'metadata',
      'messages',
      'llm_request_lifecycles',
      'tool_call_records',
      'tool_result_records',
    ]);
    const first = (file.messages as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual([
      'role',
      'content',
      'category',
      'id',
      'timestamp',
      'metadata',
      'tokens',
      'agent_id',
      'recipient_id',
      'message_type',
    ]);
    expect(first.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
    const [again] = (await collect((await importerFor('penguin')).read(out))) as SessionItem[];
    expect(again?.session).toMatchObject({
      id: 'native-1',
      agentId: 'planner',
      userId: 'u-7',
      variables: { harbour: 'Leith' },
    });
    expect(again?.session.metadata).toMatchObject({ topic: 'tides' });
    const messages = again?.session.messages ?? [];
    expect(messages.map((message) => message.id)).toEqual(native.messages.map((message) => message.id));
    expect(messages.map((message) => message.timestamp)).toEqual(native.messages.map((message) => message.timestamp));
    expect(messages[1]).toMatchObject({ name: 'ana', tokens: { estimate: 3 } });
    expect(messages[3]).toMatchObject({ role: 'tool', toolCallId: 'c1', name: 'tide' });
    expect(messages[2]?.content).toEqual([{ type: 'text', text: 'Checking.' }]);
  });

  it('penguin-legacy writes the seed-era keys only', async () => {
    const out = join(dir, 'legacy');
    await (await exporterFor('penguin-legacy')).write(each([imported(CLEAN).session]), out);
    const file = JSON.parse(await readFile(join(out, `${CLEAN}.json`), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual(['id', 'created_at', 'last_active', 'metadata', 'messages']);
    const first = (file.messages as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['role', 'content', 'category', 'id', 'timestamp', 'metadata']);
  });
});
