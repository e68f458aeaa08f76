import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { openWatched, repairSessions, verifySessions } from '../../src/operations/index.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { cleanup, fill, sampleSession, tempDir } from './helpers.js';

afterEach(cleanup);

/** A file store with sessions s-0000…s-0002, s-0001 saved twice (so it has a backup) and its snapshot then overwritten with garbage. */
async function damagedFileStore(): Promise<string> {
  const dir = await tempDir();
  const store = await openStore(`file:${dir}`);
  await fill(store, 3);
  const session = await store.load('s-0001');
  await store.save(session.append(Message.user('later')), { expectedVersion: session.version });
  await store.close();
  const snapshot = join(dir, 'sessions', 's-0001', 'snapshot');
  expect(readdirSync(join(dir, 'sessions', 's-0001'))).toContain('snapshot.bak');
  writeFileSync(snapshot, 'garbage that fails its checksum\n'.repeat(20));
  return `file:${dir}`;
}

describe('verifySessions', () => {
  it('finds nothing wrong in sound sessions and names a missing one', async () => {
    const store = await openStore('memory:');
    await fill(store, 4);
    const report = await verifySessions(store);
    expect(report).toMatchObject({ checked: 4, failed: 0, ok: true, findings: [] });
    const named = await verifySessions(store, { ids: ['s-0001', 'nope'] });
    expect(named.checked).toBe(2);
    expect(named.findings).toEqual([
      expect.objectContaining({ sessionId: 'nope', code: 'NOT_FOUND', severity: 'problem' }),
    ]);
    expect(named.ok).toBe(false);
  });

  it('reports the file store’s damage (repaired by the read), then the recovery notice on the next run', async () => {
    const url = await damagedFileStore();
    const { store, damage } = await openWatched(url);
    try {
      const first = await verifySessions(store, { damage });
      expect(first.ok).toBe(false);
      expect(first.failed).toBe(1);
      const damaged = first.findings.filter((finding) => finding.severity === 'problem');
      expect(damaged).toEqual([
        expect.objectContaining({ sessionId: 's-0001', check: 'damage', code: 'restored-from-backup' }),
      ]);
    } finally {
      await store.close();
    }
    const again = await openWatched(url);
    try {
      const second = await verifySessions(again.store, { damage: again.damage });
      expect(second.ok).toBe(true);
      // The repair lost the last save: the notice says so, as a notice.
      expect(second.findings).toEqual([
        expect.objectContaining({
          sessionId: 's-0001',
          check: 'recovery',
          severity: 'notice',
          code: 'restored-from-backup',
        }),
      ]);
    } finally {
      await again.store.close();
    }
  });

  it('reports a record SQLite cannot read as CORRUPT, and a session sealed with another key as WRONG_KEY', async () => {
    const dir = await tempDir();
    const path = join(dir, 'chat.db');
    const store = await openStore(`sqlite:${path}`);
    await fill(store, 2);
    await store.close();
    const db = new Database(path);
    db.prepare(`UPDATE messages SET data = '{not json' WHERE session_id = 's-0000' AND seq = 2`).run();
    db.close();
    const reopened = await openStore(`sqlite:${path}`);
    const report = await verifySessions(reopened);
    await reopened.close();
    expect(report.findings).toEqual([expect.objectContaining({ sessionId: 's-0000', check: 'read', code: 'CORRUPT' })]);

    const sealedUrl = `sqlite:${join(dir, 'sealed.db')}`;
    const sealed = await openStore(sealedUrl, { encryption: 'a secret of thirty-two characters!' });
    await fill(sealed, 1);
    await sealed.close();
    const wrong = await openStore(sealedUrl, { encryption: 'another secret, also long enough!!' });
    const keyed = await verifySessions(wrong);
    await wrong.close();
    // The session's key check tells a wrong key from tampering before any record is opened.
    expect(keyed.findings).toEqual([
      expect.objectContaining({
        code: 'WRONG_KEY',
        message: expect.stringMatching(/not the key the session was written with/),
      }),
    ]);
  });

  it('reports tool calls left unpaired and checks only the providers asked for', async () => {
    const store = await openStore('memory:');
    const session = Session.create({
      id: 'unpaired',
      messages: [
        Message.user('hi'),
        Message.assistant('', { toolCalls: [{ id: 'c1', name: 'f', arguments: {} }] }),
        Message.user('never answered'),
        Message.assistant('ok'),
      ],
    });
    await store.save(session);
    const report = await verifySessions(store, { providers: ['anthropic'] });
    expect(report.ok).toBe(false);
    expect(report.findings.map((finding) => [finding.check, finding.code])).toContainEqual([
      'tool-pairing',
      'missing_tool_result',
    ]);
    expect(report.findings.every((finding) => finding.provider === undefined || finding.provider === 'anthropic')).toBe(
      true,
    );
  });

  it('keeps at most maxFindings and counts the rest', async () => {
    const store = await openStore('memory:');
    await verifySessions(store, { ids: ['a', 'b', 'c'], maxFindings: 1 }).then((report) => {
      expect(report.findings).toHaveLength(1);
      expect(report.omitted).toBe(2);
    });
    await expect(verifySessions(store, { ids: ['../etc'] })).rejects.toMatchObject({ code: 'INVALID_ID' });
  });
});

describe('repairSessions', () => {
  it('says what the file store repaired, and that nothing is left the second time', async () => {
    const url = await damagedFileStore();
    const { store, damage } = await openWatched(url);
    try {
      const report = await repairSessions(store, { damage });
      expect(report).toMatchObject({ checked: 3, repaired: 1, unrepairable: 0 });
      expect(report.sessions[0]).toMatchObject({ sessionId: 's-0001', status: 'repaired' });
      expect(report.sessions[0]?.actions[0]).toMatch(/^restored-from-backup: .*lost\+found/);
      const again = await repairSessions(store, { damage });
      expect(again).toMatchObject({ checked: 3, repaired: 0, unrepairable: 0, sessions: [] });
    } finally {
      await store.close();
    }
  });

  it('reports a session SQLite cannot recover, and pairs tool calls when asked', async () => {
    const dir = await tempDir();
    const path = join(dir, 'chat.db');
    const store = await openStore(`sqlite:${path}`);
    await store.save(sampleSession(1));
    await store.save(
      Session.create({
        id: 'unpaired',
        messages: [
          Message.user('hi'),
          Message.assistant('', { toolCalls: [{ id: 'c1', name: 'f', arguments: {} }] }),
          Message.assistant('x'),
        ],
      }),
    );
    const db = new Database(path);
    db.prepare(`UPDATE sessions SET data = 'garbage' WHERE id = 's-0001'`).run();
    db.close();
    try {
      const report = await repairSessions(store, { toolPairs: true });
      expect(report.unrepairable).toBe(1);
      expect(report.repaired).toBe(1);
      const byId = Object.fromEntries(report.sessions.map((each) => [each.sessionId, each]));
      expect(byId['s-0001']).toMatchObject({ status: 'unrepairable', code: 'CORRUPT' });
      expect(byId.unpaired?.actions[0]).toMatch(/^missing_tool_result/);
      expect((await verifySessions(store, { ids: ['unpaired'] })).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('records the kind of an internal session saved before heads carried kinds, keeping its place and messages', async () => {
    const dir = await tempDir();
    const path = join(dir, 'chat.db');
    const store = await openStore(`sqlite:${path}`);
    try {
      await store.save(sampleSession(1));
      const knowledge = await store.save(
        Session.create({
          id: 'facts',
          userId: 'u',
          metadata: { chatstate: 'knowledge' },
          messages: [Message.context('a fact')],
        }),
      );
      // As a row written before the kind column: NULL, so it lists as a conversation.
      const db = new Database(path);
      db.prepare(`UPDATE sessions SET kind = NULL WHERE id = 'facts'`).run();
      db.close();
      expect((await store.list()).map((row) => row.id).sort()).toEqual(['facts', 's-0001']);
      const report = await repairSessions(store);
      expect(report).toMatchObject({ checked: 2, repaired: 1, unrepairable: 0 });
      expect(report.sessions[0]).toMatchObject({
        sessionId: 'facts',
        actions: [expect.stringMatching(/^kind knowledge recorded/)],
      });
      expect((await store.list()).map((row) => row.id)).toEqual(['s-0001']);
      const [row] = await store.list({ kinds: ['knowledge'] });
      expect(row).toMatchObject({ id: 'facts', kind: 'knowledge', updatedAt: knowledge.updatedAt, messageCount: 1 });
      // Nothing left to do the second time.
      expect((await repairSessions(store)).repaired).toBe(0);
    } finally {
      await store.close();
    }
  });
});
