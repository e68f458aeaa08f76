/**
 * The OpenAPI conformance check (openapi.test.ts over the memory store, openapi-stores.test.ts over
 * the others): a sample of requests per documented route — its success, and each error status
 * that can be brought about (400, 401, 403, 404, 409, 412, 413, and 503 from a server over a
 * closed store) — sent over real HTTP, each answer checked against the document: a status it
 * declares for the route, a body its schema for that status and media type accepts (ajv, JSON
 * Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import { createServerApp } from '../../src/server/app.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { buildForkedThread } from '../adapters/langgraph/forked-thread.js';
import { boundedCall } from './bounded-call.js';
import { documentedRoutes, routeKey, type DocRoute, type OpenApiDocument } from './openapi-doc.js';
import { startProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { loadConfig, modelSpec } from './agent-configs.js';
import { FIXTURE_ASSET, startTestServer, type TestKeys, type TestServer } from './server-harness.js';

/** Largest body the test server takes: the 413 samples send more. */
const MAX_BODY = 64 * 1024;

/** How long a sample's body is read (an event stream sends `ready` at once, then waits). */
const READ_MS = 1_000;

/** The `$id` the document is known by to ajv: response schemas are JSON pointers into it. */
const DOC_ID = 'https://chatstate.test/openapi.json';

/** The state key of the servers that make state blobs. */
const STATE_KEY = 'the openapi test state key, longer than sixteen characters';

/** Methods whose bodies the server limits (whether or not the route takes one). */
const BODY_METHODS = new Set(['post', 'put', 'patch']);

/** A state blob of tenant A's, made in `beforeAll`. */
let blob = '';
/** A fact of tenant A's alice, made in `beforeAll`, that the forget sample deletes. */
let fact = '';
/** The LangGraph thread's conversation (tenant A's, made in `beforeAll` with LangGraph itself). */
const DOC_THREAD = 'lg.rforked-1';
/** The checkpoint the thread's first branch ended at, made in `beforeAll`. */
let threadFork = '';

/** One request and the status it must answer. */
interface Sample {
  readonly status: number;
  readonly path: string;
  /** The key's name; `null` for no key. @default 'adminA' */
  readonly key?: keyof TestKeys | null;
  /** A JSON body; a string is sent as it is. */
  readonly body?: unknown;
  /** The body, made when the sample is sent (from what `beforeAll` made, or the server it goes to). */
  readonly bodyOf?: (server: TestServer) => unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The path, made when the sample is sent (from what `beforeAll` made). */
  readonly pathOf?: () => string;
  /** Sent to the server over a closed store, or to the one without a state key (nor agents). @default the open one */
  readonly server?: 'closed' | 'stateless';
}

const hello = (id: string, content = 'hello') => ({ id, role: 'user', content });
const tooLong = 'u'.repeat(300);
const malformedJson = '{"id": ';
/** A session in its JSON format, as `PUT /sessions/{id}` takes it. */
const sessionJson = (id: string, extra: Record<string, unknown> = {}) => ({
  formatVersion: 1,
  id,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  version: 0,
  messages: [hello('p1')],
  variables: {},
  metadata: {},
  ...extra,
});

/**
 * Samples per route, by the route's key in the document. The first is the route's success: the
 * generic samples (no key, an oversized or malformed body, a closed store) reuse its path and body.
 * The sessions they act on are made in `beforeAll`.
 */
export const SAMPLES: Readonly<Record<string, readonly Sample[]>> = {
  'GET /healthz': [{ status: 200, path: '/healthz', key: null }],
  'GET /auth/session': [
    { status: 200, path: '/auth/session' },
    { status: 200, path: '/auth/session', key: null },
  ],
  'POST /auth/session': [
    { status: 200, path: '/auth/session', body: { ttlSeconds: 600 } },
    { status: 200, path: '/auth/session', key: null, bodyOf: (server) => ({ key: server.keys.memberA }) },
    { status: 401, path: '/auth/session', key: null, body: { key: 'csk_unknown' } },
    { status: 400, path: '/auth/session', body: { ttlSeconds: 1 } },
  ],
  'DELETE /auth/session': [{ status: 204, path: '/auth/session' }],
  'GET /readyz': [{ status: 200, path: '/readyz', key: null }],
  // The open server has a metrics key: an admin key opens /metrics too, none gets 401.
  'GET /metrics': [{ status: 200, path: '/metrics' }],
  'GET /': [{ status: 200, path: '/', key: null }],
  'GET /assets/{file}': [
    { status: 200, path: `/assets/${FIXTURE_ASSET}`, key: null },
    { status: 400, path: '/assets/..%2Fpackage.json' },
    { status: 404, path: '/assets/no-such-file.js' },
  ],
  'GET /sessions': [
    { status: 200, path: '/sessions?limit=2' },
    { status: 200, path: '/sessions?userId=alice&agentId=planner' },
    { status: 200, path: '/sessions?q=DOC-READ&limit=1' },
    { status: 200, path: '/sessions?q=lisbon&updatedAfter=2020-01-01T00:00:00Z' },
    { status: 400, path: '/sessions?cursor=not-a-cursor' },
    { status: 400, path: '/sessions?limit=0' },
    { status: 400, path: '/sessions?updatedAfter=yesterday' },
  ],
  'GET /sessions/{id}/summary': [
    { status: 200, path: '/sessions/doc-read/summary' },
    { status: 400, path: '/sessions/..%2Fetc/summary' },
    { status: 404, path: '/sessions/doc-none/summary' },
  ],
  'GET /sessions/{id}/stats': [
    { status: 200, path: '/sessions/doc-read/stats' },
    { status: 400, path: '/sessions/..%2Fetc/stats' },
    { status: 404, path: '/sessions/doc-none/stats' },
  ],
  'GET /sessions/{id}/timeline': [
    { status: 200, path: '/sessions/doc-read/timeline' },
    { status: 200, path: '/sessions/doc-compact/timeline?points=1' },
    { status: 400, path: '/sessions/doc-read/timeline?points=0' },
    { status: 404, path: '/sessions/doc-none/timeline' },
  ],
  'GET /sessions/{id}/thread': [
    { status: 200, path: '/sessions/doc-read/thread' },
    { status: 200, path: `/sessions/${DOC_THREAD}/thread` },
    { status: 200, path: `/sessions/${DOC_THREAD}.cp/thread?limit=2&checkpoints=1&elsewhere=0` },
    {
      status: 200,
      path: `/sessions/${DOC_THREAD}/thread`,
      pathOf: () => `/sessions/${DOC_THREAD}/thread?checkpoint=${threadFork}`,
    },
    { status: 400, path: `/sessions/${DOC_THREAD}/thread?limit=0` },
    { status: 400, path: '/sessions/..%2Fetc/thread' },
    { status: 404, path: '/sessions/doc-none/thread' },
    { status: 404, path: `/sessions/${DOC_THREAD}/thread?checkpoint=no-such-checkpoint` },
  ],
  'POST /sessions': [
    {
      status: 201,
      path: '/sessions',
      body: {
        id: 'doc-new',
        userId: 'alice',
        agentId: 'planner',
        messages: [hello('m1'), { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'hi' }] }],
        variables: { city: 'Lisbon' },
        metadata: { title: 'Trip' },
        ttlMs: 3_600_000,
      },
    },
    { status: 201, path: '/sessions', body: {} },
    { status: 400, path: '/sessions', body: { id: 'doc-bad', messages: [{ role: 'robot' }] } },
    { status: 400, path: '/sessions', body: { id: 'doc-plain' }, headers: { 'content-type': 'text/plain' } },
    { status: 403, path: '/sessions', key: 'aliceA', body: { id: 'doc-theirs', userId: 'bob' } },
    { status: 409, path: '/sessions', body: { id: 'doc-read' } },
  ],
  'PUT /sessions/{id}': [
    { status: 200, path: '/sessions/doc-put', body: { session: sessionJson('doc-put'), ttlMs: 3_600_000 } },
    {
      status: 200,
      path: '/sessions/doc-put',
      headers: { 'if-match': '"1"' },
      body: { session: sessionJson('doc-put', { metadata: { edited: true } }), keepUpdatedAt: true, erase: true },
    },
    {
      status: 412,
      path: '/sessions/doc-put',
      headers: { 'if-match': '"1"' },
      body: { session: sessionJson('doc-put') },
    },
    {
      status: 412,
      path: '/sessions/doc-put',
      headers: { 'if-match': '"0"' },
      body: { session: sessionJson('doc-put') },
    },
    { status: 400, path: '/sessions/doc-put', body: { session: sessionJson('doc-other') } },
    { status: 400, path: '/sessions/doc-put', body: { session: { id: 'doc-put' } } },
    {
      status: 403,
      path: '/sessions/doc-put-bob',
      key: 'aliceA',
      body: { session: sessionJson('doc-put-bob', { userId: 'bob' }) },
    },
  ],
  'POST /purge-expired': [
    { status: 200, path: '/purge-expired' },
    { status: 403, path: '/purge-expired', key: 'memberA' },
  ],
  'GET /sessions/{id}': [
    { status: 200, path: '/sessions/doc-read' },
    { status: 400, path: '/sessions/..%2Fetc' },
    { status: 404, path: '/sessions/doc-none' },
  ],
  'DELETE /sessions/{id}': [
    { status: 204, path: '/sessions/doc-delete' },
    { status: 400, path: '/sessions/..%2Fetc' },
    { status: 404, path: '/sessions/doc-delete' },
  ],
  'GET /sessions/{id}/messages': [
    { status: 200, path: '/sessions/doc-read/messages' },
    { status: 200, path: '/sessions/doc-read/messages?afterSeq=1&beforeSeq=9&limit=1' },
    { status: 400, path: '/sessions/doc-read/messages?limit=0' },
    { status: 404, path: '/sessions/doc-none/messages' },
  ],
  'POST /sessions/{id}/messages': [
    {
      status: 200,
      path: '/sessions/doc-append/messages',
      headers: { 'if-match': '"1"' },
      body: { messages: [hello('a1')] },
    },
    { status: 200, path: '/sessions/doc-append/messages', body: { messages: [hello('a1')] } },
    {
      status: 412,
      path: '/sessions/doc-append/messages',
      headers: { 'if-match': '"1"' },
      body: { messages: [hello('a2')] },
    },
    {
      status: 400,
      path: '/sessions/doc-append/messages',
      headers: { 'if-match': 'W/"2"' },
      body: { messages: [hello('a3')] },
    },
    { status: 400, path: '/sessions/doc-append/messages', body: { messages: [] } },
    { status: 404, path: '/sessions/doc-none/messages', body: { messages: [hello('a1')] } },
  ],
  'POST /sessions/{id}/tail': [
    {
      status: 200,
      path: '/sessions/doc-tail/tail',
      headers: { 'if-match': '"1"' },
      body: { afterSeq: 1, messages: [hello('t1')] },
    },
    {
      status: 412,
      path: '/sessions/doc-tail/tail',
      headers: { 'if-match': '"1"' },
      body: { afterSeq: 0, messages: [] },
    },
    // Without If-Match: a tail replace is always on a version read.
    { status: 400, path: '/sessions/doc-tail/tail', body: { afterSeq: 0, messages: [] } },
    {
      status: 400,
      path: '/sessions/doc-tail/tail',
      headers: { 'if-match': '"2"' },
      body: { afterSeq: 9, messages: [] },
    },
    {
      status: 404,
      path: '/sessions/doc-none/tail',
      headers: { 'if-match': '"1"' },
      body: { afterSeq: 0, messages: [] },
    },
  ],
  'GET /sessions/{id}/events': [
    { status: 200, path: '/sessions/doc-read/events' },
    { status: 400, path: '/sessions/..%2Fetc/events' },
    { status: 404, path: '/sessions/doc-none/events' },
  ],
  'POST /sessions/{id}/compact': [
    { status: 200, path: '/sessions/doc-compact/compact', body: { strategy: 'messageLimit', maxMessages: 1 } },
    { status: 200, path: '/sessions/doc-read/compact', body: { strategy: 'slidingWindow', turns: 1, dryRun: true } },
    { status: 400, path: '/sessions/doc-read/compact', body: { strategy: 'messageLimit' } },
    { status: 400, path: '/sessions/doc-read/compact', body: { strategy: 'no-such-strategy', maxMessages: 1 } },
    { status: 404, path: '/sessions/doc-none/compact', body: { strategy: 'messageLimit', maxMessages: 1 } },
  ],
  'POST /sessions/{id}/fork': [
    { status: 201, path: '/sessions/doc-read/fork', body: { atMessageId: 'm1' } },
    { status: 201, path: '/sessions/doc-read/fork', body: { atMessageId: 'm2', id: 'doc-forked' } },
    { status: 400, path: '/sessions/doc-read/fork', body: {} },
    { status: 404, path: '/sessions/doc-read/fork', body: { atMessageId: 'no-such-message' } },
    { status: 404, path: '/sessions/doc-none/fork', body: { atMessageId: 'm1' } },
    { status: 409, path: '/sessions/doc-read/fork', body: { atMessageId: 'm1', id: 'doc-read' } },
  ],
  'POST /sessions/{id}/turns': [
    { status: 201, path: '/sessions/doc-turn/turns', body: { input: 'Lisbon in May?' } },
    { status: 200, path: '/sessions/doc-turn/turns', body: { input: [hello('t1', 'And Porto?')], agentId: 'doc' } },
    { status: 200, path: '/sessions/doc-turn/turns', body: { input: [hello('t1', 'And Porto?')] } },
    {
      status: 200,
      path: '/sessions/doc-turn-tool/turns',
      body: { input: 'tool recall {"query":"Lisbon"}', userId: 'alice' },
      key: 'aliceA',
    },
    { status: 400, path: '/sessions/doc-turn/turns', body: { input: 'hi', agentId: 'nobody' } },
    { status: 400, path: '/sessions/doc-turn/turns', body: { input: [] } },
    { status: 403, path: '/sessions/doc-turn-bob/turns', key: 'aliceA', body: { input: 'hi', userId: 'bob' } },
    { status: 409, path: '/sessions/doc-turn-stale/turns', body: { input: [hello('u1', 'first')] } },
    { status: 422, path: '/sessions/doc-turn/turns', body: { input: 'loop forever', agentId: 'doc-bounded' } },
    { status: 429, path: '/sessions/doc-turn/turns', body: { input: 'limit reached' } },
    { status: 501, path: '/sessions/doc-turn/turns', server: 'stateless', body: { input: 'hi' } },
    { status: 502, path: '/sessions/doc-turn/turns', body: { input: 'fail now' } },
  ],
  'POST /sessions/{id}/continue': [
    { status: 201, path: '/sessions/doc-continue/continue' },
    { status: 400, path: '/sessions/..%2Fetc/continue' },
    { status: 404, path: '/sessions/doc-none/continue' },
    { status: 409, path: '/sessions/doc-continue/continue' },
  ],
  'GET /sessions/{id}/values': [
    { status: 200, path: '/sessions/doc-read/values' },
    { status: 200, path: '/sessions/doc-alice/values', key: 'aliceA' },
    { status: 400, path: '/sessions/..%2Fetc/values' },
    { status: 404, path: '/sessions/doc-bob/values', key: 'aliceA' },
  ],
  'PATCH /sessions/{id}/values': [
    { status: 200, path: '/sessions/doc-read/values', body: { colour: 'red', nested: { a: [1, null] }, gone: null } },
    { status: 400, path: '/sessions/doc-read/values', body: [1] },
    { status: 404, path: '/sessions/doc-bob/values', key: 'aliceA', body: { colour: 'red' } },
  ],
  'POST /messages/at': [
    {
      status: 200,
      path: '/messages/at',
      body: {
        refs: [
          { sessionId: 'doc-read', seq: 2 },
          { sessionId: 'doc-none', seq: 1 },
          { sessionId: 'doc-read', seq: 9 },
        ],
      },
    },
    { status: 400, path: '/messages/at', body: { refs: [{ sessionId: '../etc', seq: 1 }] } },
    { status: 400, path: '/messages/at', body: { refs: [{ sessionId: 'doc-read', seq: 0 }] } },
    {
      status: 400,
      path: '/messages/at',
      body: { refs: Array.from({ length: 1001 }, () => ({ sessionId: 'doc-read', seq: 1 })) },
    },
  ],
  'GET /users/{userId}/marks': [
    { status: 200, path: '/users/alice/marks' },
    { status: 200, path: '/users/alice/marks', key: 'aliceA' },
    { status: 400, path: `/users/${tooLong}/marks` },
    { status: 403, path: '/users/bob/marks', key: 'aliceA' },
  ],
  'GET /values/users/{userId}': [
    { status: 200, path: '/values/users/alice' },
    { status: 400, path: `/values/users/${tooLong}` },
    { status: 403, path: '/values/users/bob', key: 'aliceA' },
  ],
  'DELETE /users/{userId}': [
    { status: 200, path: '/users/doc-forgotten' },
    { status: 400, path: `/users/${tooLong}` },
    { status: 403, path: '/users/doc-forgotten', key: 'aliceA' },
  ],
  'PATCH /values/users/{userId}': [
    { status: 200, path: '/values/users/alice', body: { colour: 'red' } },
    { status: 400, path: '/values/users/alice', body: 'true' },
    { status: 403, path: '/values/users/bob', key: 'aliceA', body: { colour: 'red' } },
  ],
  'GET /values/agents/{agentId}/users/{userId}': [
    { status: 200, path: '/values/agents/planner/users/alice' },
    { status: 400, path: `/values/agents/${tooLong}/users/alice` },
    { status: 403, path: '/values/agents/planner/users/bob', key: 'aliceA' },
  ],
  'PATCH /values/agents/{agentId}/users/{userId}': [
    { status: 200, path: '/values/agents/planner/users/alice', body: { colour: 'red' } },
    { status: 400, path: '/values/agents/planner/users/alice', body: [] },
    { status: 403, path: '/values/agents/planner/users/bob', key: 'aliceA', body: { colour: 'red' } },
  ],
  // MCP over Streamable HTTP: JSON-RPC answers (a tool's own failure is a result, 200); the
  // transport's JSON-RPC errors and chatstate's share 400.
  'POST /mcp': [
    { status: 200, path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    {
      status: 200,
      path: '/mcp?user=alice',
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_graph', arguments: {} } },
    },
    { status: 202, path: '/mcp', body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    { status: 400, path: '/mcp', body: { jsonrpc: '2.0' } },
    { status: 400, path: `/mcp?user=${tooLong}`, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } },
    { status: 403, path: '/mcp?user=bob', key: 'aliceA', body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } },
  ],
  'POST /recall': [
    { status: 200, path: '/recall', body: { userId: 'alice', query: 'Lisbon', k: 3 } },
    { status: 403, path: '/recall', key: 'aliceA', body: { userId: 'bob', query: 'Lisbon' } },
    { status: 400, path: '/recall', body: { userId: 'alice' } },
  ],
  'GET /working-memory/users/{userId}': [
    { status: 200, path: '/working-memory/users/alice' },
    { status: 200, path: '/working-memory/users/alice?agentId=planner' },
    { status: 400, path: `/working-memory/users/${tooLong}` },
    { status: 403, path: '/working-memory/users/bob', key: 'aliceA' },
  ],
  'PATCH /working-memory/users/{userId}': [
    { status: 200, path: '/working-memory/users/alice', body: { patch: { city: 'Oslo', pets: { cat: 'Tom' } } } },
    { status: 400, path: '/working-memory/users/alice', body: { patch: [] } },
    { status: 403, path: '/working-memory/users/bob', key: 'aliceA', body: { patch: { city: 'Oslo' } } },
    { status: 409, path: '/working-memory/users/alice', body: { patch: { city: 'Rome' }, expectedVersion: 999 } },
  ],
  'GET /working-memory/users/{userId}/versions': [
    { status: 200, path: '/working-memory/users/alice/versions?limit=2' },
    { status: 400, path: '/working-memory/users/alice/versions?limit=0' },
    { status: 403, path: '/working-memory/users/bob/versions', key: 'aliceA' },
  ],
  'POST /knowledge/users/{userId}': [
    { status: 201, path: '/knowledge/users/alice', body: { text: 'Alice likes Lisbon.', tags: ['travel'] } },
    { status: 400, path: '/knowledge/users/alice', body: { text: 'x', validFrom: 'someday' } },
    { status: 403, path: '/knowledge/users/bob', key: 'aliceA', body: { text: 'Bob likes Rome.' } },
    { status: 404, path: '/knowledge/users/alice', body: { text: 'Alice likes Porto.', supersedes: 'msg-none' } },
  ],
  'DELETE /knowledge/users/{userId}/facts/{factId}': [
    {
      status: 204,
      path: '/knowledge/users/alice/facts/(made in beforeAll)',
      pathOf: () => `/knowledge/users/alice/facts/${fact}`,
    },
    { status: 400, path: '/knowledge/users/alice/facts/-dash-first' },
    { status: 403, path: '/knowledge/users/bob/facts/msg-none', key: 'aliceA' },
    { status: 404, path: '/knowledge/users/alice/facts/msg-none' },
  ],
  'POST /state/encode': [
    { status: 200, path: '/state/encode', body: { provider: 'anthropic', messages: [hello('s1')] } },
    { status: 200, path: '/state/encode', body: { provider: 'gemini', messages: [hello('s1')], encrypt: true } },
    { status: 400, path: '/state/encode', body: { provider: 'no-such-provider', messages: [] } },
    { status: 501, path: '/state/encode', server: 'stateless', body: { provider: 'anthropic', messages: [] } },
  ],
  'POST /state/decode': [
    { status: 200, path: '/state/decode', bodyOf: () => ({ provider: 'openaiChat', state: blob }) },
    { status: 200, path: '/state/decode', body: { provider: 'openaiChat', state: 'not-a-state-blob' } },
    { status: 400, path: '/state/decode', body: { provider: 'openaiChat' } },
    { status: 501, path: '/state/decode', server: 'stateless', body: { provider: 'openaiChat', state: 'x' } },
  ],
  'POST /state/append': [
    {
      status: 200,
      path: '/state/append',
      bodyOf: () => ({ provider: 'openaiChat', state: blob, messages: [hello('s2')] }),
    },
    {
      status: 200,
      path: '/state/append',
      body: { provider: 'openaiChat', state: 'not-a-state-blob', messages: [hello('s2')], encrypt: true },
    },
    { status: 400, path: '/state/append', body: { provider: 'openaiChat', messages: [] } },
    {
      status: 501,
      path: '/state/append',
      server: 'stateless',
      body: { provider: 'openaiChat', messages: [hello('s2')] },
    },
  ],
  'POST /values/batch': [
    { status: 204, path: '/values/batch', body: { owner: { scope: 'app' }, set: { plan: null }, delete: ['old'] } },
    { status: 204, path: '/values/batch', body: { owner: { scope: 'user', userId: 'alice' }, set: { colour: 'red' } } },
    { status: 400, path: '/values/batch', body: { owner: { scope: 'nowhere' } } },
    { status: 400, path: '/values/batch', body: { owner: { scope: 'app' }, set: { k: 1 }, delete: ['k'] } },
    { status: 403, path: '/values/batch', key: 'memberA', body: { owner: { scope: 'app' }, set: { plan: 'free' } } },
    { status: 403, path: '/values/batch', key: 'aliceA', body: { owner: { scope: 'user', userId: 'bob' } } },
    {
      status: 404,
      path: '/values/batch',
      key: 'aliceA',
      body: { owner: { scope: 'session', sessionId: 'doc-bob' }, set: { colour: 'red' } },
    },
  ],
  'GET /values/app': [
    { status: 200, path: '/values/app' },
    { status: 200, path: '/values/app', key: 'aliceA' },
  ],
  'PATCH /values/app': [
    { status: 200, path: '/values/app', body: { plan: 'gold' } },
    { status: 400, path: '/values/app', body: 'null' },
    { status: 403, path: '/values/app', key: 'memberA', body: { plan: 'free' } },
  ],
};

const RACE = 'only a concurrent writer between its read and its commit brings it about';
const SHARED_VALUE_ERRORS = 'one list of errors for every value scope (routes/values.ts); not one this scope gives';

/**
 * Statuses the document declares that no sample here brings about, and why: a status declared
 * later needs a sample or a line here.
 */
const UNPRODUCED: Readonly<Record<string, string>> = {
  'DELETE /knowledge/users/{userId}/facts/{factId} 409': `${RACE} (five in a row)`,
  'GET / 404': 'only a server without a built web browser answers it (test/server/pages.test.ts has that server)',
  'POST /sessions/{id}/messages 409': RACE,
  'POST /sessions/{id}/compact 409': RACE,
  'GET /sessions/{id}/values 403': `${SHARED_VALUE_ERRORS}: a key bound to another user gets 404`,
  'PATCH /sessions/{id}/values 403': `${SHARED_VALUE_ERRORS}: a key bound to another user gets 404`,
  'GET /values/users/{userId} 404': SHARED_VALUE_ERRORS,
  'PATCH /values/users/{userId} 404': SHARED_VALUE_ERRORS,
  'GET /values/agents/{agentId}/users/{userId} 404': SHARED_VALUE_ERRORS,
  'PATCH /values/agents/{agentId}/users/{userId} 404': SHARED_VALUE_ERRORS,
  'GET /values/app 400': `${SHARED_VALUE_ERRORS}: it has no input`,
  'GET /values/app 403': `${SHARED_VALUE_ERRORS}: every key of the tenant reads it`,
  'GET /values/app 404': SHARED_VALUE_ERRORS,
  'PATCH /values/app 404': SHARED_VALUE_ERRORS,
};

/** The sessions the samples act on, each made with the key named. */
const FIXTURES: ReadonlyArray<{ id: string; key: keyof TestKeys; body?: Record<string, unknown> }> = [
  {
    id: 'doc-read',
    key: 'adminA',
    body: {
      userId: 'alice',
      agentId: 'planner',
      messages: [
        hello('m1', 'Lisbon in May?'),
        // Measured usage: the timeline's points carry it.
        {
          id: 'm2',
          role: 'assistant',
          content: 'Yes.',
          metadata: { usage: { model: 'doc', inputTokens: 120, outputTokens: 2, cachedInputTokens: 100 } },
        },
      ],
    },
  },
  { id: 'doc-delete', key: 'adminA' },
  { id: 'doc-append', key: 'adminA' },
  { id: 'doc-tail', key: 'adminA', body: { messages: [hello('d1'), hello('d2')] } },
  {
    id: 'doc-compact',
    key: 'adminA',
    body: { messages: [hello('c1', 'one'), hello('c2', 'two'), hello('c3', 'three')] },
  },
  { id: 'doc-continue', key: 'adminA', body: { messages: [hello('k1')] } },
  { id: 'doc-alice', key: 'aliceA' },
  { id: 'doc-bob', key: 'bobA' },
  { id: 'doc-turn-tool', key: 'aliceA' },
  { id: 'doc-turn-stale', key: 'adminA', body: { messages: [hello('u1', 'first'), hello('u2', 'second')] } },
];

/** A JSON pointer segment (RFC 6901) as a URI fragment part. */
function pointerPart(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** The document's declared answers, checked with ajv against the document itself. */
export class Conformance {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    ajvFormats.default(this.ajv);
    // The document's own fields and OpenAPI's additions to a schema object: not JSON Schema keywords.
    for (const keyword of ['openapi', 'info', 'paths', 'components', 'servers', 'tags', 'webhooks', 'security'])
      this.ajv.addKeyword(keyword);
    for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
  }

  /** What is wrong with `answer` as the document's answer of `route`; nothing when it conforms. */
  problems(route: DocRoute, answer: { status: number; headers: Headers; text: string }): string[] {
    const status = String(answer.status);
    const declared = route.operation.responses[status];
    if (declared === undefined)
      return [`answers ${status}, which it does not declare (${Object.keys(route.operation.responses).join(', ')})`];
    const mediaType = answer.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (declared.content === undefined)
      return answer.text === '' ? [] : [`answers ${status} with a body, declared without content`];
    const media = declared.content[mediaType];
    if (media === undefined)
      return [`answers ${status} as ${mediaType || 'no type'}, declared: ${Object.keys(declared.content).join(', ')}`];
    if (media.schema === undefined) return [];
    let value: unknown = answer.text;
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
      try {
        value = JSON.parse(answer.text);
      } catch {
        return [`answers ${status} with a body that is not JSON: ${answer.text.slice(0, 100)}`];
      }
    }
    const pointer = ['paths', route.path, route.method, 'responses', status, 'content', mediaType, 'schema']
      .map(pointerPart)
      .join('/');
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
    return [`answers ${status} with a body its schema refuses: ${errors.join('; ')}`];
  }
}

/** The routes the app serves, as `METHOD /path` in OpenAPI's `{param}` form (the document itself aside). */
export function servedRoutes(store: SessionStore): string[] {
  const app = createServerApp({ store, log: () => undefined });
  const served = new Set<string>();
  for (const route of app.routes) {
    // Middleware is registered for ALL methods; the document's own route is what it describes, not part of it.
    if (route.method === 'ALL' || route.path === '/openapi.json') continue;
    served.add(routeKey(route.method, route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
  }
  return [...served].sort();
}

/** The servers one store kind's samples go to: over the fixtures, over a closed store, and without a state key. */
export interface Servers {
  readonly server: TestServer;
  readonly closedServer: TestServer;
  readonly statelessServer: TestServer;
  /** The store under `server`. */
  readonly store: SessionStore;
  close(): Promise<void>;
}

/** Starts the three servers over stores from `open`, and makes the fixtures and the state blob. */
export async function startServers(open: () => Promise<SessionStore>): Promise<Servers> {
  // The agents' model: the real `openai` client against a protocol server playing a scripted model.
  const provider = await startProtocolServer();
  provider.respondWith(scriptedProvider);
  const agents = await loadConfig(provider.url, {
    defaultAgentId: 'doc',
    agents: [
      {
        id: 'doc',
        model: modelSpec('openaiChat'),
        memoryTools: true,
        compaction: { strategy: 'slidingWindow', turns: 1 },
      },
      { id: 'doc-bounded', model: modelSpec('openaiChat'), memoryTools: true, maxIterations: 1 },
    ],
  });
  const store = await open();
  const server = await startTestServer(store, {
    maxBodyBytes: MAX_BODY,
    stateKey: STATE_KEY,
    metricsKey: 'the-openapi-test-metrics-key',
    ...agents,
  });
  // A server whose store is closed answers 503 wherever it needs the store.
  const closedStore = await open();
  await closedStore.close();
  const closedServer = await startTestServer(closedStore, { maxBodyBytes: MAX_BODY, stateKey: STATE_KEY, ...agents });
  // Without a state key the state routes answer 501; without agents, turns do.
  const statelessStore = await open();
  const statelessServer = await startTestServer(statelessStore, { maxBodyBytes: MAX_BODY });
  for (const fixture of FIXTURES) {
    const made = await server.call('POST', '/sessions', {
      key: server.keys[fixture.key],
      body: { id: fixture.id, ...fixture.body },
    });
    expect(made.status, `${fixture.id}: ${made.text}`).toBe(201);
  }
  const thread = await buildForkedThread(tenantStore(store, { tenant: 'tenant-a' }));
  expect(thread.conversation).toBe(DOC_THREAD);
  threadFork = thread.firstBranch.checkpointId;
  const encoded = await server.call('POST', '/state/encode', {
    key: server.keys.adminA,
    body: { provider: 'openaiChat', messages: [hello('s1', 'Lisbon in May?')] },
  });
  blob = (encoded.json as { state: string }).state;
  const remembered = await server.call('POST', '/knowledge/users/alice', {
    key: server.keys.adminA,
    body: { text: 'Alice grows figs.' },
  });
  fact = (remembered.json as { id: string }).id;
  return {
    server,
    closedServer,
    statelessServer,
    store,
    async close() {
      await server.close();
      await closedServer.close();
      await statelessServer.close();
      await store.close();
      await statelessStore.close();
      await provider.close();
    },
  };
}

/**
 * Sends every sample of every documented route, and the generic ones (no key, a closed store, a
 * body too large, a body that is not JSON), to `servers`: every answer's status must be the
 * sample's and one `doc` declares, with a body its schema accepts; and every declared
 * status must be brought about, but for those `UNPRODUCED` explains.
 */
export async function expectEveryStatusDeclared(servers: Servers, doc: OpenApiDocument): Promise<void> {
  const { server, closedServer, statelessServer } = servers;
  const routes = documentedRoutes(doc);
  const problems: string[] = [];
  const conformance = new Conformance(doc);
  const produced = new Map<string, Set<number>>();
  const send = async (route: DocRoute, sample: Sample, why: string) => {
    const to = sample.server === 'closed' ? closedServer : sample.server === 'stateless' ? statelessServer : server;
    const keyName = sample.key === undefined ? 'adminA' : sample.key;
    const body = sample.bodyOf === undefined ? sample.body : sample.bodyOf(to);
    const path = sample.pathOf?.() ?? sample.path;
    const answer = await boundedCall(
      to.url,
      route.method.toUpperCase(),
      path,
      {
        ...(keyName === null ? {} : { key: to.keys[keyName] }),
        ...(body === undefined ? {} : { body }),
        ...(sample.headers === undefined ? {} : { headers: sample.headers }),
      },
      READ_MS,
    );
    const where = `${route.key} (${why}: ${path})`;
    if (answer.status !== sample.status)
      problems.push(
        `${where}: answered ${answer.status}, the sample expects ${sample.status}: ${answer.text.slice(0, 200)}`,
      );
    // Only an event stream may still be sending when reading stops.
    if (answer.cut && !(answer.headers.get('content-type') ?? '').startsWith('text/event-stream'))
      problems.push(`${where}: no complete answer in ${READ_MS} ms`);
    for (const problem of conformance.problems(route, answer)) problems.push(`${where}: ${problem}`);
    const statuses = produced.get(route.key) ?? new Set<number>();
    statuses.add(answer.status);
    produced.set(route.key, statuses);
  };

  for (const route of routes) {
    const samples = SAMPLES[route.key] ?? [];
    const success = samples[0];
    if (success === undefined || success.status >= 300) {
      problems.push(`${route.key}: no success sample first`);
      continue;
    }
    for (const sample of samples) await send(route, sample, `sample ${sample.status}`);
    const declares = (status: number) => route.operation.responses[String(status)] !== undefined;
    // Without a key: 401 where the route needs one; elsewhere the same answer as with one.
    await send(route, { ...success, key: null, status: declares(401) ? 401 : success.status }, 'no key');
    // A store that cannot answer: 503 where the route needs the store.
    await send(route, { ...success, server: 'closed', status: declares(503) ? 503 : success.status }, 'closed store');
    // The body limit holds for every method with a body, whether or not the route takes one.
    const { bodyOf: _, ...plain } = success;
    if (BODY_METHODS.has(route.method))
      await send(route, { ...plain, body: { pad: 'x'.repeat(MAX_BODY + 1) }, status: 413 }, 'too large');
    if ((route.operation as { requestBody?: unknown }).requestBody !== undefined)
      await send(route, { ...plain, body: malformedJson, status: 400 }, 'not JSON');
  }
  expect(problems).toEqual([]);
  const unproduced = routes.flatMap((route) =>
    Object.keys(route.operation.responses)
      .filter((status) => !produced.get(route.key)?.has(Number(status)))
      .map((status) => `${route.key} ${status}`),
  );
  expect(unproduced.sort()).toEqual(Object.keys(UNPRODUCED).sort());
}
