/**
 * A session whose stored row was damaged (by hand, or by another program) stays one session's
 * problem over HTTP: the tenant's listing answers 200 and flags it, reading it answers a typed
 * 500 `CORRUPT` that names only the tenant's own id, another session reads, recall searches the
 * readable ones, `/readyz` is 200, and
 * a key bound to its user can DELETE it (through the tenant view's ownership check).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { startTestServer, type TestServer } from './server-harness.js';

describe('a damaged session over HTTP', () => {
  const opened: Array<SessionStore | TestServer> = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const each of opened.reverse()) await each.close();
    opened.length = 0;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('is listed with why, fails its own reads only, and can be deleted by its user', async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatstate-damaged-http-'));
    const file = join(dir, 'sessions.db');
    const store = await sqliteStore(file);
    opened.push(store);
    const server = await startTestServer(store);
    opened.push(server);
    const key = server.keys.aliceA;
    for (const id of ['kept', 'broken']) {
      const created = await server.call('POST', '/sessions', {
        key,
        body: { id, messages: [{ role: 'user', content: `hello from ${id}` }] },
      });
      expect(created.status).toBe(201);
    }
    const db = new Database(file);
    const changed = db.prepare("UPDATE sessions SET version = -1 WHERE id LIKE '%broken'").run().changes;
    db.close();
    expect(changed).toBe(1);

    const list = await server.call('GET', '/sessions', { key });
    expect(list.status).toBe(200);
    const rows = (list.json as { sessions: Array<{ id: string; damaged?: string }> }).sessions;
    expect(rows.map((row) => row.id).sort()).toEqual(['broken', 'kept']);
    const damaged = rows.find((row) => row.id === 'broken')?.damaged;
    expect(damaged).toMatch(/version/);
    // The tenant's own id, never the store's name for it.
    expect(damaged).toContain('"broken"');
    expect(damaged).not.toMatch(/[a-z0-9]+\.broken/);

    const read = await server.call('GET', '/sessions/broken', { key });
    expect(read.status).toBe(500);
    expect(read.json).toMatchObject({ code: 'CORRUPT' });
    expect(read.text).not.toMatch(/[a-z0-9]+\.broken/);
    expect((await server.call('GET', '/sessions/kept', { key })).status).toBe(200);
    expect((await server.call('GET', '/readyz')).status).toBe(200);
    // Recall over the user's sessions searches the readable ones.
    const recall = await server.call('POST', '/recall', { key, body: { userId: 'alice', query: 'hello from kept' } });
    expect(recall.status).toBe(200);
    expect((recall.json as { hits: Array<{ sessionId: string }> }).hits.map((hit) => hit.sessionId)).toEqual(['kept']);

    // Another user's key cannot see it, let alone delete it.
    expect((await server.call('DELETE', '/sessions/broken', { key: server.keys.bobA })).status).toBe(404);
    expect((await server.call('DELETE', '/sessions/broken', { key })).status).toBe(204);
    const after = await server.call('GET', '/sessions', { key });
    expect((after.json as { sessions: Array<{ id: string }> }).sessions.map((row) => row.id)).toEqual(['kept']);
    expect((await server.call('GET', '/sessions/broken', { key })).status).toBe(404);
  });
});
