import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exporterFor, importerFor } from '../index.js';
import type { ImportItem } from '../types.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { DOC_BLOB, writeGoaitoolsBlobs } from '../../../test/fixtures/interchange/goaitools/make.js';
import { collect, each } from '../../../test/support/async-iterables.js';
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
  dir = await mkdtemp(join(tmpdir(), 'goaitools-'));
  await writeGoaitoolsBlobs(join(dir, 'blobs'));
  items = await collect((await importerFor('goaitools')).read(join(dir, 'blobs')));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('goaitools importer', () => {
  it('reads the OpenAI messages of a blob through the OpenAI Chat mapping', () => {
    const { session, repairs } = imported('doc');
    expect(repairs).toEqual([]);
    expect(session.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Tide at Leith?'],
      ['assistant', ''],
      ['tool', 'High water 12:10'],
      ['assistant', 'High tide <noon>, calm.'],
    ]);
    expect(session.metadata.goaitools).toMatchObject({ provider: 'openai', processedLength: 4, encoding: 'json' });
  });

  it('quirk 3: arguments stay the JSON string; quirk 2: a result takes its call’s name', () => {
    const { session } = imported('doc');
    expect(session.messages[1]?.toolCalls).toEqual([{ id: 'call_7', name: 'get_tide', arguments: '{"port":"Leith"}' }]);
    expect(session.messages[2]).toMatchObject({ toolCallId: 'call_7', name: 'get_tide' });
  });

  it('quirk 4: deterministic ids from the blob hash and position, timestamps flagged as absent', async () => {
    const { session } = imported('doc');
    expect(session.messages[0]?.id).toMatch(/^gt-[0-9a-f]{12}-0$/);
    expect(session.metadata.goaitools).toMatchObject({ timestampsAbsent: true, idsDerived: true });
    const again = await collect((await importerFor('goaitools')).read(join(dir, 'blobs', 'doc.json')));
    expect((again[0] as SessionItem).session.messages.map((message) => message.id)).toEqual(
      session.messages.map((message) => message.id),
    );
  });

  it('§4.1: base64, URL-safe base64 and a JSON string wrapping the blob read the same messages', () => {
    const messages = (id: string) => imported(id).session.messages.map((message) => message.content);
    for (const id of ['base64', 'base64url', 'wrapped']) expect(messages(id), id).toEqual(messages('doc'));
    expect(imported('base64').session.metadata.goaitools).toMatchObject({ encoding: 'base64' });
    // Text without `-` or `_` is both: it reads as standard base64.
    expect(imported('base64url').session.metadata.goaitools).toMatchObject({
      encoding: expect.stringMatching(/^base64/),
    });
    expect(imported('wrapped').session.metadata.goaitools).toMatchObject({ encoding: 'json-string' });
  });

  it('quirk 7: a system message at index 0 is a system message; quirk 5: pending messages counted', () => {
    const { session } = imported('appended');
    expect(session.messages.map((message) => message.role)).toEqual(['system', 'user', 'user', 'system']);
    expect(session.metadata.goaitools).toMatchObject({ processedLength: 2, pending: 2 });
  });

  it('quirk 5 (pre-0.3.1): processed_length 0 is flagged as unknown', () => {
    expect(imported('old').session.metadata.goaitools).toMatchObject({
      processedLength: 0,
      processedLengthUnknown: true,
    });
  });

  it('quirk 1: absent content reads as empty (an empty message is skipped and kept in metadata); unknown keys kept', () => {
    const item = imported('old');
    const { session } = item;
    expect(session.metadata.goaitools).toMatchObject({ skipped: [{ role: 'user' }] });
    expect(item.repairs.map((repair) => repair.kind)).toContain('empty_message');
    // `content: null` is flagged (chatstate has no null content); the unknown key is kept.
    expect(session.messages[0]?.content).toEqual([{ type: 'raw', provider: 'openaiChat', value: { extra: 1 } }]);
    expect(session.messages[0]?.metadata.goaitools).toMatchObject({ contentNull: true });
    const result = session.messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ toolCallId: 'c1', content: '', name: 'noop' });
  });

  it('an unknown role is kept verbatim and reported', () => {
    const item = imported('old');
    expect(item.session.messages.at(-1)?.content).toEqual([
      { type: 'raw', provider: 'openaiChat', value: { role: 'other', content: 'an unknown role' } },
    ]);
    expect(item.repairs.map((repair) => repair.kind)).toContain('unknown_role');
  });

  it('quirk 8: an orphaned result at the start is repaired and reported', () => {
    const item = imported('orphan');
    expect(item.session.messages[0]).toMatchObject({ role: 'system', category: 'context', content: 'left over' });
    expect(item.repairs.map((repair) => repair.kind)).toEqual(['orphan_tool_result']);
  });

  it('quirk 6: another provider’s messages are kept verbatim as raw parts, with a warning', () => {
    const item = imported('foreign');
    expect(item.session.messages[0]?.content).toEqual([
      { type: 'raw', provider: 'openaiChat', value: { role: 'user', parts: [{ text: 'hola' }] } },
    ]);
    expect(item.repairs.map((repair) => repair.kind)).toEqual(['foreign_provider']);
  });

  it('keys match case-insensitively, as in Go', () => {
    expect(imported('cased').session.messages[0]?.content).toBe('hi');
  });

  it('damaged blobs: truncated JSON is CORRUPT, a wrong type INVALID_ARGUMENT at its line', () => {
    expect(problem('bad-truncated.json')).toMatchObject({ code: 'CORRUPT', source: { line: 1 } });
    expect(problem('bad-truncated.json').message).toContain('invalid_conversation_state');
    expect(problem('bad-type.json')).toMatchObject({ code: 'INVALID_ARGUMENT', source: { line: 4 } });
  });

  it('damaged blobs: another version, and a message goaitools cannot unmarshal, are refused by their log names', () => {
    expect(problem('bad-version.json').message).toContain('unsupported_state_version');
    expect(problem('bad-message.json')).toMatchObject({ code: 'CORRUPT' });
    expect(problem('bad-message.json').message).toContain('message_unmarshal_failed');
    expect(items.filter((item) => item.kind === 'problem')).toHaveLength(4);
  });

  it('a missing file is NOT_FOUND, thrown (nothing of the path can be read)', async () => {
    await expect(collect((await importerFor('goaitools')).read(join(dir, 'absent.json')))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('goaitools exporter', () => {
  it('round trip: a blob goaitools wrote exports byte for byte', async () => {
    const target = join(dir, 'out', 'doc.json');
    const summary = await (await exporterFor('goaitools')).write(each([imported('doc').session]), target);
    expect(summary).toMatchObject({ sessions: 1, files: ['doc.json'] });
    expect(await readFile(target, 'utf8')).toBe(DOC_BLOB);
  });

  it('round trip: importing an export gives back equal messages and pending counts', async () => {
    const out = join(dir, 'many');
    const ids = ['doc', 'appended', 'old', 'foreign'];
    await (await exporterFor('goaitools')).write(each(ids.map((id) => imported(id).session)), out);
    const back = (await collect((await importerFor('goaitools')).read(out))) as SessionItem[];
    const shape = (session: Session) =>
      session.messages
        .filter((message) => !(message === session.messages[0] && message.role === 'system'))
        .map((message) => ({
          role: message.role,
          content: message.content,
          toolCalls: message.toolCalls,
          toolCallId: message.toolCallId,
        }));
    for (const id of ids) {
      const again = back.find((item) => item.session.id === id) as SessionItem;
      expect(shape(again.session), id).toEqual(shape(imported(id).session));
    }
    const old = await readFile(join(out, 'old.json'), 'utf8');
    expect(old).toContain('{"role":"user","content":null,"extra":1}');
    expect(old).toContain('"processed_length":4');
    expect(back.find((item) => item.session.id === 'foreign')?.session.metadata.goaitools).toMatchObject({
      provider: 'gemini',
    });
  });

  it('leaves out leading system messages, flattens parts to text, and says what it could not hold', async () => {
    const session = Session.create({
      id: 'native',
      messages: [
        Message.system('You are terse.'),
        Message.user([
          { type: 'text', text: 'Look' },
          { type: 'image', url: 'https://example.com/a.png' },
        ]),
        Message.assistant('Done & dusted'),
      ],
    });
    const target = join(dir, 'native.json');
    const summary = await (await exporterFor('goaitools')).write(each([session]), target);
    expect(await readFile(target, 'utf8')).toBe(
      '{"version":1,"provider":"openai","processed_length":2,"messages":[{"role":"user","content":"Look"},{"role":"assistant","content":"Done \\u0026 dusted"}]}',
    );
    expect(summary.warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining('1 leading system message'),
      expect.stringContaining('image part'),
      expect.stringContaining('no ids, timestamps'),
    ]);
  });

  it('goaitools-base64 writes the blob as Go stores a []byte, and reads back', async () => {
    const target = join(dir, 'b64', 'doc.json');
    await (await exporterFor('goaitools-base64')).write(each([imported('doc').session]), target);
    expect(Buffer.from(await readFile(target, 'utf8'), 'base64').toString('utf8')).toBe(DOC_BLOB);
  });

  it('a .json target holds one blob: a second session is INVALID_ARGUMENT', async () => {
    const exporter = await exporterFor('goaitools');
    await expect(
      exporter.write(each([imported('doc').session, imported('old').session]), join(dir, 'one.json')),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
