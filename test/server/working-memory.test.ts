/**
 * Working memory over HTTP: two servers over one SQLite database (two processes' worth of store
 * handles) take merge patches to the same user's working memory at once; none is lost, every
 * version is listed with the key that wrote it, and a stale `expectedVersion` answers 409.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { startTestServer, type TestServer } from './server-harness.js';

describe('working memory routes', () => {
  const opened: Array<SessionStore | TestServer> = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const each of opened.reverse()) await each.close();
    opened.length = 0;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every patch two servers take at once, and lists each version with who wrote it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatstate-wm-http-'));
    const file = join(dir, 'sessions.db');
    const stores = [await sqliteStore(file), await sqliteStore(file)];
    opened.push(...stores);
    const servers = [
      await startTestServer(stores[0] as SessionStore),
      await startTestServer(stores[1] as SessionStore),
    ];
    opened.push(...servers);
    const edits = 10;
    const answers = await Promise.all(
      servers.flatMap((server, which) =>
        Array.from({ length: edits }, (_, index) =>
          server.call('PATCH', '/working-memory/users/alice', {
            key: server.keys.adminA,
            body: { patch: { [`s${which}-${index}`]: index } },
          }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const [first, second] = servers as [TestServer, TestServer];
    const current = await second.call('GET', '/working-memory/users/alice', { key: second.keys.aliceA });
    expect(current.status).toBe(200);
    const document = (current.json as { document: Record<string, number> }).document;
    expect(Object.keys(document)).toHaveLength(2 * edits);
    expect((current.json as { version: number }).version).toBe(2 * edits + 1);
    const listed = await first.call('GET', '/working-memory/users/alice/versions?limit=1000', {
      key: first.keys.adminA,
    });
    const versions = (listed.json as { versions: Array<{ version: number; by: string }> }).versions;
    expect(versions.map((version) => version.version)).toEqual(
      Array.from({ length: 2 * edits + 1 }, (_, index) => index + 1),
    );
    expect(versions.every((version) => version.by.startsWith('key:'))).toBe(true);

    // A patch against a version that is no longer the newest is refused: the caller reads again.
    const stale = await first.call('PATCH', '/working-memory/users/alice', {
      key: first.keys.adminA,
      body: { patch: { late: true }, expectedVersion: 2 },
    });
    expect([stale.status, (stale.json as { code?: string }).code]).toEqual([409, 'CONFLICT']);
    // Tenant B's alice is another user: her memory is empty.
    const other = await first.call('GET', '/working-memory/users/alice', { key: first.keys.adminB });
    expect(other.json).toEqual({ version: 0, document: {} });
  });

  it('refuses a document over the size limit with 413 and another user with 403', async () => {
    const store = await sqliteStore(':memory:');
    opened.push(store);
    const server = await startTestServer(store);
    opened.push(server);
    const big = await server.call('PATCH', '/working-memory/users/alice', {
      key: server.keys.adminA,
      body: { patch: { note: 'x'.repeat(40_000) } },
    });
    expect([big.status, (big.json as { code?: string }).code]).toEqual([413, 'TOO_LARGE']);
    const forbidden = await server.call('PATCH', '/working-memory/users/bob', {
      key: server.keys.aliceA,
      body: { patch: { note: 'hi' } },
    });
    expect(forbidden.status).toBe(403);
    expect((await server.call('GET', '/working-memory/users/alice', { key: server.keys.adminA })).json).toEqual({
      version: 0,
      document: {},
    });
  });
});
