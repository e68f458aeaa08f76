import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importerFor } from '../index.js';
import type { ImportItem } from '../types.js';
import { DOC_STATE, writeCoreasonDumps } from '../../../test/fixtures/interchange/coreason/make.js';
import { collect } from '../../../test/support/async-iterables.js';
import { type SessionItem, type ProblemItem } from '../../../test/fixtures/interchange/items.js';

let dir: string;
let items: ImportItem[];

const from = (name: string): ImportItem => {
  const found = items.find((item) => item.source.path.endsWith(`/${name}`));
  if (found === undefined) throw new Error(`nothing from ${name}`);
  return found;
};
const session = (name: string) => (from(name) as SessionItem).session;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'coreason-'));
  await writeCoreasonDumps(dir);
  items = await collect((await importerFor('coreason')).read(dir));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('coreason importer', () => {
  it('maps a SessionState: id, agent, user, times and variables (nulls inside kept)', () => {
    const state = session('doc.json');
    expect(state).toMatchObject({
      id: DOC_STATE.id,
      agentId: 'planner',
      userId: 'u-204',
      createdAt: '2026-02-07T09:30:00.000Z',
      updatedAt: '2026-02-07T09:31:05.123Z',
      variables: { harbour: 'Leith', last_answer: null },
    });
  });

  it('quirk 1 (no roles): each interaction is a user message; JSON input kept verbatim; no input is skipped and reported', () => {
    const item = from('doc.json') as SessionItem;
    const [first, second] = item.session.messages;
    expect(item.session.messages).toHaveLength(2);
    expect(first).toMatchObject({ id: DOC_STATE.history[0]?.id, role: 'user', content: 'What is the tide at noon?' });
    expect(second).toMatchObject({
      role: 'user',
      content: '{"text":"and tomorrow?","locale":"en-GB"}',
      metadata: {
        coreason: { input: { text: 'and tomorrow?', locale: 'en-GB' }, lineage: { root_request_id: 'r-17' } },
      },
    });
    expect(item.repairs.map((repair) => repair.kind)).toEqual(['empty_message']);
    expect(item.session.metadata.coreason).toMatchObject({ skipped: [{ id: DOC_STATE.history[2]?.id }] });
  });

  it('quirk 2 (no per-interaction time): spread between created_at and updated_at, in order, flagged', () => {
    const { messages, metadata } = session('doc.json');
    expect(messages.map((message) => message.timestamp)).toEqual([
      '2026-02-07T09:30:00.000Z',
      '2026-02-07T09:30:32.561Z',
    ]);
    expect(messages[0]?.metadata.coreason).toMatchObject({ timestampDerived: true });
    expect(metadata.coreason).toMatchObject({ timestampsSpread: true });
  });

  it('quirk 3 (timestamps): offsets, naive values (assumed UTC, flagged) and epoch numbers', () => {
    expect(session('pydantic.json').createdAt).toBe('2026-02-07T09:30:00.000Z');
    const noIds = session('no-ids.json');
    expect(noIds.createdAt).toBe('2026-02-07T09:30:00.000Z');
    expect(noIds.updatedAt).toBe('2026-02-07T09:36:40.500Z');
    expect(noIds.metadata.coreason).toMatchObject({ timesAssumedUtc: true });
  });

  it('quirk 5 (unknown keys): ignored as Coreason does, kept in metadata; null input and lineage read as absent', () => {
    const item = from('pydantic.json') as SessionItem;
    expect(item.session.metadata.coreason).toMatchObject({ extra: { tenant: 'acme' } });
    expect(item.session.messages.map((message) => message.content)).toEqual(['hello']);
  });

  it('quirk 6 (missing ids): deterministic session and message ids, flagged', async () => {
    const state = session('no-ids.json');
    expect(state.id).toMatch(/^coreason-[0-9a-f]{16}$/);
    expect(state.messages.map((message) => message.id)).toEqual([`${state.id}.0`, `${state.id}.1`]);
    expect(state.messages[0]?.metadata.coreason).toMatchObject({ idDerived: true });
    const again = await collect((await importerFor('coreason')).read(join(dir, 'no-ids.json')));
    expect((again[0] as SessionItem).session.id).toBe(state.id);
  });

  it('the older shape: context ids, real timestamps, outputs as assistant messages, context variables', () => {
    const state = session('old.json');
    expect(state).toMatchObject({
      id: '6f9619ff-8b86-d011-b42d-00cf4fc964ff',
      agentId: '2b7e1516-28ae-d2a6-abf7-15880934a1b2',
      userId: 'u-1',
      updatedAt: '2026-02-03T10:05:00.000Z',
      variables: { city: 'Oslo' },
    });
    expect(state.messages.map((message) => [message.role, message.content, message.timestamp])).toEqual([
      ['user', 'Weather?', '2026-02-03T10:01:00.000Z'],
      ['assistant', 'Sunny.', '2026-02-03T10:01:00.000Z'],
    ]);
    expect(state.messages[0]?.metadata.coreason).toMatchObject({ meta: { model: 'x' }, events: [] });
    expect(state.metadata.coreason).toMatchObject({ shape: 'context', extra: { processor: { id: 'p' } } });
  });

  it('damaged dumps: truncated JSON is CORRUPT, a wrong type and a missing key INVALID_ARGUMENT with their lines', () => {
    expect(from('bad-truncated.json')).toMatchObject({ kind: 'problem', code: 'CORRUPT', source: { line: 6 } });
    expect(from('bad-type.json')).toMatchObject({ kind: 'problem', code: 'INVALID_ARGUMENT', source: { line: 7 } });
    const missing = from('bad-missing.json') as ProblemItem;
    expect(missing).toMatchObject({ kind: 'problem', code: 'INVALID_ARGUMENT', source: { line: 1 } });
    expect(missing.message).toContain('"agent_id" is missing');
    expect(items.filter((item) => item.kind === 'session')).toHaveLength(4);
  });

  it('a reserved variable name is kept in metadata, not refused', async () => {
    const path = join(dir, 'reserved', 'state.json');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(dir, 'reserved'));
    await writeFile(
      path,
      JSON.stringify({ ...DOC_STATE, variables: {} }).replace('"variables":{}', '"variables":{"__proto__":1,"ok":2}'),
    );
    const [item] = (await collect((await importerFor('coreason')).read(path))) as SessionItem[];
    expect(item?.session.variables).toEqual({ ok: 2 });
    expect(item?.session.metadata.coreason).toMatchObject({ variables: { ['__proto__']: 1 } });
    expect(item?.repairs.map((repair) => repair.kind)).toEqual(['empty_message', 'reserved_variable']);
  });
});
