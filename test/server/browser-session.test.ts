/**
 * Browser sessions (a key traded for an HttpOnly, SameSite=Strict cookie), their refusal of
 * cross-site writes, CORS (off unless configured) and the security headers of every answer — over
 * real HTTP against a real store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/server/auth/api-keys.js';
import { SESSION_COOKIE, SessionSigner } from '../../src/server/auth/browser-session.js';
import { startServer } from '../../src/server/node.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { startTestServer, type TestServer } from './server-harness.js';

const SECRET = 'the browser session secret of these tests';

let store: SessionStore;
let server: TestServer;

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store, { sessionSecret: SECRET });
  for (const [key, id] of [
    [server.keys.adminA, 'mine'],
    [server.keys.adminB, 'theirs'],
  ] as const)
    expect((await server.call('POST', '/sessions', { key, body: { id, userId: 'alice' } })).status).toBe(201);
});

afterAll(async () => {
  await server.close();
  await store.close();
});

/** Logs in with `key` and returns the cookie's `name=value` and its whole Set-Cookie line. */
async function login(
  key: string,
  body: Record<string, unknown> = {},
  on: TestServer = server,
): Promise<{ cookie: string; line: string }> {
  const answer = await on.call('POST', '/auth/session', { body: { key, ...body } });
  expect(answer.status).toBe(200);
  const line = answer.headers.getSetCookie().find((set) => set.startsWith(`${SESSION_COOKIE}=`));
  if (line === undefined) throw new Error('no session cookie was set');
  return { cookie: line.split(';')[0] as string, line };
}

function ids(json: unknown): string[] {
  return (json as { sessions: Array<{ id: string }> }).sessions.map((row) => row.id);
}

describe('browser sessions', () => {
  it('trade a key for an HttpOnly, SameSite=Strict cookie that reads only the key’s tenant', async () => {
    const { cookie, line } = await login(server.keys.aliceA);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; Max-Age=43200/);
    // Plain HTTP on loopback: a Secure cookie would never come back.
    expect(line).not.toMatch(/; Secure/);
    const listed = await server.call('GET', '/sessions', { headers: { cookie } });
    expect(listed.status).toBe(200);
    expect(ids(listed.json)).toEqual(['mine']);
    expect((await server.call('GET', '/sessions/theirs', { headers: { cookie } })).status).toBe(404);
    const who = await server.call('GET', '/auth/session', { headers: { cookie } });
    expect(who.json).toMatchObject({
      keysRequired: true,
      via: 'cookie',
      principal: { tenant: 'tenant-a', role: 'member', userId: 'alice' },
    });
    expect(Date.parse((who.json as { expiresAt: string }).expiresAt)).toBeGreaterThan(Date.now() + 11 * 3600_000);
  });

  it('take the key from Authorization too, and a shorter lifetime when asked', async () => {
    const answer = await server.call('POST', '/auth/session', { key: server.keys.adminA, body: { ttlSeconds: 120 } });
    expect(answer.status).toBe(200);
    expect(answer.headers.getSetCookie()[0]).toMatch(/; Max-Age=120/);
  });

  it('refuse a wrong key, no key and bad settings, and set no cookie', async () => {
    for (const [body, key, status, code] of [
      [{ key: 'csk_not-a-key' }, undefined, 401, 'UNAUTHORIZED'],
      [{}, undefined, 401, 'UNAUTHORIZED'],
      [{ key: server.keys.adminA, ttlSeconds: 5 }, undefined, 400, 'INVALID_ARGUMENT'],
      [{ key: server.keys.adminA, ttlSeconds: 10 ** 9 }, undefined, 400, 'INVALID_ARGUMENT'],
      [{ key: server.keys.adminA, extra: true }, undefined, 400, 'INVALID_ARGUMENT'],
      [{}, 'csk_not-a-key', 401, 'UNAUTHORIZED'],
    ] as const) {
      const answer = await server.call('POST', '/auth/session', { body, ...(key === undefined ? {} : { key }) });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.json).toMatchObject({ code });
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
  });

  it('refuse a cookie that was changed, forged, or has expired', async () => {
    const { cookie } = await login(server.keys.aliceA);
    const [name, token] = cookie.split('=') as [string, string];
    const [version, expiry, mac, keyId] = token.split('.') as [string, string, string, string];
    const flipped = `${mac.slice(0, 10)}${mac[10] === 'A' ? 'B' : 'A'}${mac.slice(11)}`;
    const adminId = server.entries.adminA.id;
    const forgedBySomeoneElse = new SessionSigner('another secret, sixteen or more').sign(
      adminId,
      server.entries.adminA.hash,
      Number(expiry),
    );
    const expired = new SessionSigner(SECRET).sign(
      keyId,
      server.entries.aliceA.hash,
      Math.floor(Date.now() / 1000) - 1,
    );
    for (const bad of [
      `${version}.${expiry}.${flipped}.${keyId}`,
      `${version}.${Number(expiry) + 3600}.${mac}.${keyId}`,
      `${version}.${expiry}.${mac}.${adminId}`,
      forgedBySomeoneElse,
      expired,
      'v1.1.2.3',
      '',
    ]) {
      const answer = await server.call('GET', '/sessions', { headers: { cookie: `${name}=${bad}` } });
      expect(answer.status, bad).toBe(401);
      expect(answer.json).toMatchObject({ code: 'UNAUTHORIZED' });
      const who = await server.call('GET', '/auth/session', { headers: { cookie: `${name}=${bad}` } });
      expect(who.json).toMatchObject({ principal: null });
    }
  });

  it('work on every server with the same secret, and end when the key leaves the key file', async () => {
    const alice = await login(server.keys.aliceA);
    const admin = await login(server.keys.adminA);
    // A second server with the same secret whose key file no longer holds alice's key.
    const second = await startServer({
      store,
      port: 0,
      keys: new KeyRing([server.entries.adminA, server.entries.adminB]),
      sessionSecret: SECRET,
      log: () => undefined,
    });
    const third = await startServer({
      store,
      port: 0,
      keys: new KeyRing(Object.values(server.entries)),
      sessionSecret: 'a different secret of sixteen characters',
      log: () => undefined,
    });
    try {
      const get = (url: string, cookie: string) => fetch(`${url}/sessions`, { headers: { cookie } });
      expect((await get(second.url, admin.cookie)).status).toBe(200);
      expect((await get(second.url, alice.cookie)).status).toBe(401);
      expect((await get(third.url, admin.cookie)).status).toBe(401);
    } finally {
      await second.close();
      await third.close();
    }
  });

  it('refuse cross-site writes by cookie, but not by key', async () => {
    const { cookie } = await login(server.keys.adminA);
    const host = new URL(server.url).host;
    const create = (id: string, headers: Record<string, string>, key?: string) =>
      server.call('POST', '/sessions', { body: { id }, headers, ...(key === undefined ? {} : { key }) });
    const foreign: Array<Record<string, string>> = [
      { cookie, origin: 'https://evil.example' },
      { cookie, 'sec-fetch-site': 'cross-site' },
      { cookie, 'sec-fetch-site': 'same-site' },
      { cookie, origin: 'not a url' },
      // The same host by another scheme or port is another origin.
      { cookie, origin: `https://${host}` },
      { cookie, origin: `http://${new URL(server.url).hostname}:1` },
      { cookie, origin: 'null' },
    ];
    for (const headers of foreign) {
      const answer = await create('csrf', headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.json).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect(await store.get('tenant-a.csrf')).toBeUndefined();
    // Reads by cookie from another site stay allowed: SameSite and CORS keep their answers from that site.
    expect(
      (await server.call('GET', '/sessions', { headers: { cookie, 'sec-fetch-site': 'cross-site' } })).status,
    ).toBe(200);
    const own = await create('from-own-page', { cookie, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(201);
    const byKey = await create('by-key', { origin: 'https://elsewhere.example' }, server.keys.adminA);
    expect(byKey.status).toBe(201);
  });

  it('accept cookie writes from a public origin a proxy serves the pages at, and refuse a malformed one at start', async () => {
    const proxied = await startTestServer(store, {
      sessionSecret: SECRET,
      publicOrigins: ['https://chat.example.com'],
    });
    try {
      const { cookie } = await login(proxied.keys.adminA, {}, proxied);
      const create = (id: string, origin: string) =>
        proxied.call('POST', '/sessions', {
          body: { id },
          headers: { cookie, origin, 'sec-fetch-site': 'same-origin' },
        });
      expect((await create('via-proxy', 'https://chat.example.com')).status).toBe(201);
      expect((await create('other-port', 'https://chat.example.com:8443')).status).toBe(403);
      expect((await create('plain-http', 'http://chat.example.com')).status).toBe(403);
    } finally {
      await proxied.close();
    }
    await expect(startTestServer(store, { publicOrigins: ['https://chat.example.com/'] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('Public origin') as unknown as string,
    });
  });

  it('end with DELETE /auth/session, which clears the cookie', async () => {
    const answer = await server.call('DELETE', '/auth/session');
    expect(answer.status).toBe(204);
    const line = answer.headers.getSetCookie()[0] ?? '';
    expect(line).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    expect(line).toMatch(/Max-Age=0/);
  });

  it('say that a server without keys needs no login', async () => {
    const open = await startTestServer(store, { withKeys: false });
    try {
      expect((await open.call('GET', '/auth/session')).json).toEqual({ keysRequired: false, principal: null });
      const login = await open.call('POST', '/auth/session', { body: {} });
      expect(login.json).toEqual({ keysRequired: false, principal: null });
      expect(login.headers.getSetCookie()).toEqual([]);
    } finally {
      await open.close();
    }
  });
});

describe('security headers and CORS', () => {
  it('every answer forbids rendering as a page, framing and sniffing', async () => {
    for (const [path, key] of [
      ['/sessions', server.keys.adminA],
      ['/sessions', undefined],
      ['/no/such/route', server.keys.adminA],
      ['/healthz', undefined],
    ] as const) {
      const answer = await server.call('GET', path, key === undefined ? {} : { key });
      expect(answer.headers.get('content-security-policy'), path).toBe(
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      );
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('CORS is off unless configured: no page of another origin may read an answer', async () => {
    const origin = 'https://app.example.com';
    const read = await server.call('GET', '/sessions', { key: server.keys.adminA, headers: { origin } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await server.call('OPTIONS', '/sessions', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('CORS for the origins configured, and only those', async () => {
    const allowed = 'https://app.example.com';
    const cors = await startTestServer(store, { corsOrigins: [allowed, 'http://localhost:5173'] });
    try {
      const preflight = await cors.call('OPTIONS', '/sessions/mine/messages', {
        headers: {
          origin: allowed,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, if-match, content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/If-Match/);
      expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
      const read = await cors.call('GET', '/sessions', { key: cors.keys.adminA, headers: { origin: allowed } });
      expect(read.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(read.headers.get('access-control-expose-headers')).toMatch(/ETag/);
      // Cookies never cross origins: no credentials are allowed.
      expect(read.headers.get('access-control-allow-credentials')).toBeNull();
      const other = await cors.call('GET', '/sessions', {
        key: cors.keys.adminA,
        headers: { origin: 'https://evil.example' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await cors.close();
    }
  });

  it('refuses CORS origins that are not a scheme and host', async () => {
    for (const origin of ['https://app.example.com/', 'https://app.example.com/path', '*', 'null', 'app.example.com']) {
      await expect(
        startServer({ store, port: 0, corsOrigins: [origin], log: () => undefined }),
        origin,
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  it('refuses a browser session secret shorter than 16 characters', async () => {
    await expect(startServer({ store, port: 0, sessionSecret: 'short', log: () => undefined })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
