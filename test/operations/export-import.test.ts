import { afterEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import {
  compareStores,
  exportSessions,
  importSessions,
  inputsFromStream,
  linesToInputs,
  parseLine,
} from '../../src/operations/index.js';
import { Session } from '../../src/session/session.js';
import { cleanup, collect, exportedLines, fill, newStore, sampleSession } from './helpers.js';

afterEach(cleanup);

const KINDS = ['memory', 'file', 'sqlite'] as const;

describe.each(KINDS)('export and import (%s)', (kind) => {
  it('gives back equal sessions, values and metadata', async () => {
    const source = await newStore(kind);
    const target = await newStore(kind);
    try {
      await fill(source, 7, 9);
      const lines = await exportedLines(exportSessions(source, { all: true }));
      // The app scope's line, then one line per session.
      expect(lines).toHaveLength(8);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ kind: 'values', scope: 'app' });
      const report = await importSessions(target, linesToInputs(lines));
      expect(report).toMatchObject({ created: 7, unchanged: 0, conflicts: [], problems: [] });
      const compared = await compareStores(source, target);
      expect(compared.differences).toEqual([]);
      expect(compared.equal).toBe(true);
      const original = await source.load('s-0003');
      const copy = await target.load('s-0003');
      expect(copy.version).toBe(original.version);
      // The copy keeps when its conversation last changed, not when it was imported.
      expect(copy.updatedAt).toBe(original.updatedAt);
      expect(copy.toJSON()).toEqual(original.toJSON());
      expect(copy.messages.map((m) => m.seq)).toEqual(original.messages.map((m) => m.seq));
      expect(await target.values.getAll({ scope: 'session', sessionId: 's-0003' })).toEqual({ embedding: [3, 4] });
    } finally {
      await source.close();
      await target.close();
    }
  });

  it('skips an equal session, refuses a different one with CONFLICT, and replaces it when asked', async () => {
    const store = await newStore(kind);
    try {
      await fill(store, 2);
      const lines = await exportedLines(exportSessions(store, { ids: ['s-0000', 's-0001'] }));
      expect(lines).toHaveLength(2);
      const again = await importSessions(store, linesToInputs(lines));
      expect(again).toMatchObject({ created: 0, unchanged: 2, conflicts: [] });
      const changed = await store.load('s-0000');
      await store.save(changed.append(Message.user('one more')), { expectedVersion: changed.version });
      const conflict = await importSessions(store, linesToInputs(lines));
      expect(conflict.unchanged).toBe(1);
      expect(conflict.conflicts.map((c) => c.sessionId)).toEqual(['s-0000']);
      expect(conflict.conflicts[0]?.message).toMatch(/differs \(session\)/);
      const replaced = await importSessions(store, linesToInputs(lines), { mode: 'replace' });
      expect(replaced).toMatchObject({ replaced: 1, unchanged: 1, conflicts: [] });
      const back = await store.load('s-0000');
      expect(back.messages).toHaveLength(4);
      expect(back.version).toBe(JSON.parse(lines[0] as string).session.version);
    } finally {
      await store.close();
    }
  });
});

describe('export lines', () => {
  it('name a missing id with NOT_FOUND and need ids or all', async () => {
    const store = await newStore('memory');
    await expect(collect(exportSessions(store, { ids: ['nope'] }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(collect(exportSessions(store, {}))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(collect(exportSessions(store, { ids: ['../x'] }))).rejects.toMatchObject({ code: 'INVALID_ID' });
    await expect(collect(exportSessions(store, { all: true, concurrency: 0 }))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('refuse bad lines with the line number and a typed error', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"kind":"session"', /line 3: not JSON/],
      ['[1,2]', /line 3: expected a JSON object/],
      ['{"kind":"session","exportFormat":2,"session":{}}', /exportFormat 2 is newer/],
      ['{"kind":"thing","exportFormat":1}', /unknown kind "thing"/],
      ['{"kind":"values","exportFormat":1,"scope":"user","values":{}}', /scope": "app"/],
      ['{"kind":"session","exportFormat":1,"session":{"id":"../x"}}', /line 3: Invalid session/],
      [
        `{"kind":"session","exportFormat":1,"session":${JSON.stringify(sampleSession(1))},"values":{"temp":{}}}`,
        /unknown value scope "temp"/,
      ],
      [
        `{"kind":"session","exportFormat":1,"session":${JSON.stringify(sampleSession(1))},"expiresAt":"soon"}`,
        /expiresAt/,
      ],
    ];
    for (const [text, message] of cases) {
      let caught: unknown;
      try {
        parseLine(text, 3);
      } catch (error) {
        caught = error;
      }
      expect(ChatstateError.hasCode(caught, 'INVALID_ARGUMENT'), text).toBe(true);
      expect((caught as Error).message).toMatch(message);
    }
  });

  it('import the good lines of a partly bad file and list the bad ones', async () => {
    const store = await newStore('memory');
    const good = JSON.stringify(sampleSession(5));
    const text = [
      good,
      'not json',
      '',
      JSON.stringify({ kind: 'session', exportFormat: 1, session: sampleSession(6) }),
    ].join('\n');
    const report = await importSessions(store, inputsFromStream(Readable.from([text]), { path: 'in.jsonl' }));
    expect(report.created).toBe(2);
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'INVALID_ARGUMENT', source: { path: 'in.jsonl', line: 2 } }),
    ]);
  });

  it('read a pretty-printed session JSON and a provider wire history', async () => {
    const store = await newStore('memory');
    const pretty = JSON.stringify(sampleSession(8), null, 2);
    const one = await importSessions(store, inputsFromStream(Readable.from([pretty])));
    expect(one).toMatchObject({ created: 1, problems: [] });
    expect((await store.load('s-0008')).messages).toHaveLength(4);
    const wire = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    const fromWire = await importSessions(
      store,
      inputsFromStream(Readable.from([JSON.stringify(wire)]), { from: 'openaiChat', id: 'wire-1' }),
    );
    expect(fromWire).toMatchObject({ created: 1, problems: [] });
    expect((await store.load('wire-1')).messages.map((m) => m.content)).toEqual(['hi', 'hello']);
    const array = await importSessions(store, inputsFromStream(Readable.from([JSON.stringify(wire)])));
    expect(array.problems[0]?.message).toMatch(/needs --from/);
    const broken = await importSessions(store, inputsFromStream(Readable.from(['{\n  "id": 1,\n  oops\n}'])));
    expect(broken.problems[0]?.message).toMatch(/not JSON at line 3, column 3/);
  });

  it('keep a session that is not a Session equal through its JSON', () => {
    const session = sampleSession(2);
    const entry = parseLine(JSON.stringify(session), 1);
    expect(entry.kind === 'session' && JSON.stringify(entry.bundle.session)).toBe(
      JSON.stringify(Session.fromJSON(JSON.stringify(session))),
    );
  });
});
