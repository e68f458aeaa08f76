/**
 * A chatstate server on loopback for the tests: a store, a key ring with keys of two tenants
 * (admins, a tenant-wide member, and members bound to users), and `call` to send it requests.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ServerAgent } from '../../src/server/agents/server-agent.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { KeyRing, newKey, type KeyEntry, type Role } from '../../src/server/auth/api-keys.js';
import type { LogLine } from '../../src/server/request-log.js';
import { startServer, type RunningServer } from '../../src/server/node.js';
import type { Prices } from '../../src/session/usage-totals.js';

/** A stand-in for the built web session browser: a page and two assets. */
export const FIXTURE_WEB = fileURLToPath(new URL('fixtures/web/', import.meta.url));

/** The fixture's script, as served under /assets/. */
export const FIXTURE_ASSET = 'app-fixture.js';

/** The keys of the test tenants, by name. */
export interface TestKeys {
  readonly adminA: string;
  readonly memberA: string;
  readonly aliceA: string;
  readonly bobA: string;
  readonly adminB: string;
  readonly aliceB: string;
}

function grant(tenant: string, role: Role, userId?: string): { secret: string; entry: KeyEntry } {
  return newKey({ tenant, role, ...(userId === undefined ? {} : { userId }) });
}

/** A running test server. */
export interface TestServer {
  readonly url: string;
  readonly keys: TestKeys;
  /** The key file entries of `keys` (hashes only), for a second server with some of them. */
  readonly entries: Readonly<Record<keyof TestKeys, KeyEntry>>;
  readonly logs: LogLine[];
  /** Sends a request with `key` (none when `undefined`); a JSON body is serialized. */
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  close(graceMs?: number): Promise<void>;
}

export interface CallOptions {
  readonly key?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A response, its body read (parsed when JSON). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** Starts a server over `store` with the test keys (or none, when `withKeys` is false). */
export async function startTestServer(
  store: SessionStore,
  options: {
    withKeys?: boolean;
    maxBodyBytes?: number;
    eventPollMs?: number;
    stateKey?: string;
    sessionSecret?: string;
    corsOrigins?: readonly string[];
    publicOrigins?: readonly string[];
    metricsKey?: string;
    /** The agents turns run (none: turns answer 501). */
    agents?: readonly ServerAgent[];
    defaultAgentId?: string;
    /** The built browser served at `/`. @default a fixture page (the API tests need no build) */
    web?: string | false;
    prices?: Prices;
    contextWindow?: number;
  } = {},
): Promise<TestServer> {
  const made = {
    adminA: grant('tenant-a', 'admin'),
    memberA: grant('tenant-a', 'member'),
    aliceA: grant('tenant-a', 'member', 'alice'),
    bobA: grant('tenant-a', 'member', 'bob'),
    adminB: grant('tenant-b', 'admin'),
    aliceB: grant('tenant-b', 'member', 'alice'),
  };
  const keys = Object.fromEntries(Object.entries(made).map(([name, key]) => [name, key.secret])) as unknown as TestKeys;
  const logs: LogLine[] = [];
  const server: RunningServer = await startServer({
    store,
    port: 0,
    ...(options.withKeys === false ? {} : { keys: new KeyRing(Object.values(made).map((key) => key.entry)) }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.eventPollMs === undefined ? {} : { eventPollMs: options.eventPollMs }),
    ...(options.stateKey === undefined ? {} : { stateKey: options.stateKey }),
    ...(options.sessionSecret === undefined ? {} : { sessionSecret: options.sessionSecret }),
    ...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
    ...(options.publicOrigins === undefined ? {} : { publicOrigins: options.publicOrigins }),
    ...(options.metricsKey === undefined ? {} : { metricsKey: options.metricsKey }),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    ...(options.defaultAgentId === undefined ? {} : { defaultAgentId: options.defaultAgentId }),
    ...(options.prices === undefined ? {} : { prices: options.prices }),
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    web: options.web ?? FIXTURE_WEB,
    log: (line) => logs.push(line),
  });
  const entries = Object.fromEntries(Object.entries(made).map(([name, key]) => [name, key.entry])) as Record<
    keyof TestKeys,
    KeyEntry
  >;
  return {
    url: server.url,
    keys,
    entries,
    logs,
    async call(method, path, call = {}) {
      const headers: Record<string, string> = { ...call.headers };
      if (call.key !== undefined) headers.authorization = `Bearer ${call.key}`;
      let body: string | undefined;
      if (call.body !== undefined) {
        body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    },
    close: (graceMs) => server.close(graceMs),
  };
}

/** Asserts every answer is the typed outage answer: 503 `UNAVAILABLE` in the one error shape, with `Retry-After`. */
export function expectUnavailable(answers: readonly Answer[]): void {
  for (const answer of answers) {
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.json).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.any(String),
      details: expect.any(Object),
    });
  }
}

/**
 * After a run of requests: the server is ready, tenant A's listing answers, and every view of each
 * of its sessions in `store` reads (what a request that wrote something unreadable would break).
 */
export async function expectEverySessionReadable(server: TestServer, store: SessionStore): Promise<void> {
  const key = server.keys.adminA;
  expect((await server.call('GET', '/sessions?limit=100', { key })).status).toBe(200);
  expect((await server.call('GET', '/readyz')).status).toBe(200);
  for (const summary of await store.list({ limit: 1000 })) {
    const id = summary.id.replace(/^tenant-a\./, '');
    if (id === summary.id) continue;
    for (const view of ['', '/summary', '/stats', '/timeline', '/thread', '/messages'])
      expect((await server.call('GET', `/sessions/${id}${view}`, { key })).status, `${id}${view}`).toBe(200);
  }
}
