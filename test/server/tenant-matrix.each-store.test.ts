/**
 * Tenant isolation over real HTTP, over every store of the matrix. Tenant B's sessions, messages
 * and values are seeded through the API; then every route of the served OpenAPI document (paths ×
 * methods, so a route added later is covered or the test fails) is called with each of tenant A's
 * keys aimed at B's resources: its session ids, user ids and agent ids, also spelled the way the
 * store keeps them (`tenant-b.…`, `tenant-b/…`), and a list cursor B was given. No answer may carry
 * B's data, and B's data — read with B's admin key and straight from the store — must come out
 * byte for byte as it went in. The same matrix runs inside tenant A: alice's key against bob's.
 * Turns run a real agent (the `openai` client against a protocol server playing a scripted
 * model): no request the model is sent may hold the victim's data either.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KNOWLEDGE_GRAPH_PREFIX, knowledgeGraphSessionId } from '../../src/active-memory/graph/knowledge-graph.js';
import { KNOWLEDGE_PREFIX, knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { WORKING_MEMORY_PREFIX, workingMemorySessionId } from '../../src/active-memory/working-memory.js';
import { forkLog } from '../../src/session/fork-log.js';
import type { SessionStore, ValueOwner } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import { cliStores } from '../cli/cli-stores.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { loadConfig, modelSpec } from './agent-configs.js';
import { boundedCall } from './bounded-call.js';
import { asDocument, documentedRoutes, type DocRoute } from './openapi-doc.js';
import { FIXTURE_ASSET, startTestServer, type Answer, type CallOptions, type TestServer } from './server-harness.js';

/** The tenant every attacking key belongs to (see the harness). */
const ATTACKER_TENANT = 'tenant-a';

/** Most pages a list walk follows: tenant A never holds more than a dozen sessions here. */
const MAX_PAGES = 40;

/** How long an attacker's answer is read: an event stream opened by mistake never ends by itself. */
const READ_MS = 3_000;

/** The server's state key: each tenant signs its state blobs with a subkey of it. */
const STATE_KEY = 'the tenant matrix state key, longer than sixteen characters';

/** The provider the state blobs are locked to. */
const PROVIDER = 'openaiChat';

/** Whose data a matrix run tries to reach, and how to read all of it. */
interface Victim {
  /** The victim's tenant: its stored names start with `TENANT.` (sessions) and `TENANT/` (users). */
  readonly tenant: string;
  /** Part of every marker in the victim's data: an attacker's answer never holds it. */
  readonly token: string;
  /** When the victim is one user of the tenant (not the whole tenant), that user. */
  readonly user?: string;
  /** A key that reads all of the victim's data. */
  readonly readerKey: string;
  /** The key that writes the data of `userId` (or the user-less data) while seeding. */
  writerKey(userId: string | undefined): string;
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly userId?: string }>;
  readonly users: readonly string[];
  readonly agents: readonly string[];
  /** The app scope is the victim's (another tenant's), not one the attacker shares. */
  readonly app: boolean;
  /** State blobs the victim was given (plain, encrypted), filled by `seed`: none for a user (signed per tenant). */
  readonly blobs: string[];
  /** Ids of the victim's facts (one per user), filled by `seed`. */
  readonly facts: string[];
}

/** A key of tenant A. */
interface Attacker {
  readonly name: string;
  readonly key: string;
  readonly admin: boolean;
  /** The user the key is bound to. */
  readonly userId?: string;
  /** A browser session the key opened: its requests carry this cookie instead of the key. */
  readonly cookie?: string;
}

/** One request of the matrix and what it may answer. */
interface Probe {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The statuses this attacker may get: never one that reveals or changes the victim's data. */
  readonly expect: readonly number[];
  /** A further check of the answer; returns what is wrong. */
  readonly check?: (answer: Answer) => Promise<string | undefined> | string | undefined;
}

/** What a case builds its probes from. */
interface CaseContext {
  readonly attacker: Attacker;
  readonly victim: Victim;
  /** A marker of the attacker's, unique per call. */
  mark(): string;
  /** A further request with the attacker's key, its answer checked like a probe's. */
  call(method: string, path: string, options?: Omit<CallOptions, 'key'>): Promise<Answer>;
  /** The store under the server, to see where an attacker's write landed. */
  readonly raw: SessionStore;
  /** A `nextCursor` the victim's reader was given. */
  readonly victimCursor: string;
  /** A session of the attacker's own (with message `m1`), to fork from. */
  readonly ownSession: string;
  /** Sessions the attacker sees that are older than the victim's: its list must reach them. */
  readonly anchors: readonly string[];
}

type Case = (context: CaseContext) => Probe[];

const enc = encodeURIComponent;

/** The victim's session ids, as the victim names them and as the store keeps them. */
function probeSessions(victim: Victim): Array<{ id: string; userId?: string }> {
  return victim.sessions.flatMap((session) => [session, { ...session, id: `${victim.tenant}.${session.id}` }]);
}

/** The victim's user ids, as the victim names them and as the store keeps them. */
function probeUsers(victim: Victim): string[] {
  return victim.users.flatMap((user) => [user, `${victim.tenant}/${user}`]);
}

/** Whether the attacker's key may touch the values of `userId` at all. */
function userAllowed(attacker: Attacker, userId: string): boolean {
  return attacker.userId === undefined || attacker.userId === userId;
}

/** Whether `id` names one of the victim's sessions in the attacker's own namespace (taken: not creatable). */
function victimsInOwnTenant(victim: Victim, id: string): boolean {
  return victim.tenant === ATTACKER_TENANT && victim.sessions.some((session) => session.id === id);
}

/**
 * The owners an attacker tries when creating session `id` (the victim's user, then none: the key's
 * own) and the statuses each may get: 403 for a user the key may not act for, 403/409 when the id
 * is taken in the attacker's own namespace, else 201.
 */
function creations(
  attacker: Attacker,
  victim: Victim,
  id: string,
  userId: string | undefined,
): Array<{ owner: string | undefined; expected: number[] }> {
  return [userId, undefined]
    .filter((owner, index, all) => all.indexOf(owner) === index)
    .map((owner) => {
      if (owner !== undefined && !userAllowed(attacker, owner)) return { owner, expected: [403] };
      if (victimsInOwnTenant(victim, id)) return { owner, expected: [403, 409] };
      return { owner, expected: [201] };
    });
}

/** Sets of request headers, one probe each. */
function headerSets(...sets: Array<Record<string, string>>): Array<Record<string, string>> {
  return sets;
}

function message(id: string, content: string) {
  return { id, role: 'user', content };
}

type ListRow = { id: string; userId?: string };

function rowsOf(answer: Answer): ListRow[] {
  return (answer.json as { sessions?: ListRow[] } | undefined)?.sessions ?? [];
}

/** Problems of listed rows: one of the victim's, or of another user for a bound key. */
function rowsProblem(rows: readonly ListRow[], { attacker, victim }: CaseContext): string | undefined {
  const theirs = new Set(probeSessions(victim).map((session) => session.id));
  const leaked = rows.filter((row) => theirs.has(row.id));
  if (leaked.length > 0) return `lists the victim's ${leaked.map((row) => row.id).join(', ')}`;
  const strangers = rows.filter((row) => attacker.userId !== undefined && row.userId !== attacker.userId);
  if (strangers.length > 0)
    return `a key bound to ${attacker.userId} lists ${strangers.map((row) => row.id).join(', ')}`;
  return undefined;
}

/**
 * Walks the attacker's list a row a page from the first page: every session it sees, and not one
 * of the victim's. A view that filtered the victim's rows out after the store paged over them
 * would end the walk early, before the attacker's own older sessions.
 */
async function walkProblem(first: Answer, context: CaseContext): Promise<string | undefined> {
  const seen = rowsOf(first);
  let cursor = (first.json as { nextCursor?: string } | undefined)?.nextCursor;
  for (let pages = 1; cursor !== undefined && pages < MAX_PAGES; pages++) {
    const page = await context.call('GET', `/sessions?limit=1&cursor=${enc(cursor)}`);
    if (page.status !== 200) return `page ${pages + 1} of the walk: ${page.status} ${page.text.slice(0, 200)}`;
    seen.push(...rowsOf(page));
    cursor = (page.json as { nextCursor?: string } | undefined)?.nextCursor;
  }
  const ids = new Set(seen.map((row) => row.id));
  const missing = context.anchors.filter((id) => !ids.has(id));
  if (missing.length > 0) return `the walk over the list misses the attacker's own ${missing.join(', ')}`;
  return rowsProblem(seen, context);
}

/**
 * A created session must be in the attacker's namespace, without the victim's data; it is removed
 * then, so that every key's create of the same id starts alike.
 */
async function createdProblem(context: CaseContext, answer: Answer, id: string): Promise<string | undefined> {
  if (answer.status !== 201 || victimsInOwnTenant(context.victim, id)) return undefined;
  const stored = `${ATTACKER_TENANT}.${id}`;
  const text = await context.raw.getJson(stored);
  await context.raw.delete(stored);
  if (text === undefined) return `the session is not at ${stored}`;
  if (text.includes(context.victim.token)) return `the session at ${stored} holds the victim's data`;
  if ((answer.json as { id?: string } | undefined)?.id !== id) return `answers another id than ${id}`;
  return undefined;
}

/**
 * The forks a row of the attacker's own session lists (`forks`): the ids as the attacker gave them
 * (what the store keeps inside the source's metadata, never a stored name), never a fork that was
 * refused, and each one, read with the same key, the attacker's own or gone — never the victim's.
 */
async function forksProblem(context: CaseContext, answer: Answer): Promise<string | undefined> {
  if (answer.status !== 200) return undefined;
  const forks = (answer.json as { forks?: string[] } | undefined)?.forks ?? [];
  const stored = await context.raw.get(`${ATTACKER_TENANT}.${context.ownSession}`);
  const kept = forkLog(stored?.metadata ?? {}).map((entry) => entry.sessionId);
  if (JSON.stringify(kept) !== JSON.stringify(forks))
    return `lists the forks ${JSON.stringify(forks)}, the store keeps ${JSON.stringify(kept)}`;
  const refused = forks.filter((id) => victimsInOwnTenant(context.victim, id));
  if (refused.length > 0) return `lists forks that were refused: ${refused.join(', ')}`;
  for (const id of forks) {
    const read = await context.call('GET', `/sessions/${enc(id)}/summary`);
    if (read.status !== 200 && read.status !== 404) return `its fork ${id} answers ${read.status}`;
  }
  return undefined;
}

/** A principal answered must be the attacker's own: its tenant, and its user when bound. */
function ownPrincipal(answer: Answer, attacker: Attacker): string | undefined {
  const principal = (answer.json as { principal?: { tenant?: string; userId?: string } | null } | undefined)?.principal;
  if (principal?.tenant !== ATTACKER_TENANT) return `answers the principal ${JSON.stringify(principal)}`;
  if (principal.userId !== attacker.userId) return `answers the user ${principal.userId}, not ${attacker.userId}`;
  return undefined;
}

/**
 * A turn that ran must have created its session in the attacker's namespace, for `owner`, holding
 * the turn alone (no data of the victim's); it is removed then, as a created session is.
 */
async function turnProblem(
  context: CaseContext,
  answer: Answer,
  id: string,
  owner: string | undefined,
): Promise<string | undefined> {
  if (answer.status !== 201) return undefined;
  const stored = `${ATTACKER_TENANT}.${id}`;
  const summary = await context.raw.summary(stored);
  const text = await context.raw.getJson(stored);
  await context.raw.delete(stored);
  if (text === undefined || summary === undefined) return `the turn's session is not at ${stored}`;
  if (text.includes(context.victim.token)) return `the session at ${stored} holds the victim's data`;
  const wanted = owner === undefined ? undefined : `${ATTACKER_TENANT}/${owner}`;
  if (summary.userId !== wanted) return `the turn's session is ${summary.userId}'s, not ${wanted}'s`;
  if (summary.messageCount !== 2) return `the turn's session holds ${summary.messageCount} messages, not its 2`;
  if ((answer.json as { sessionId?: string } | undefined)?.sessionId !== id) return `answers another id than ${id}`;
  return undefined;
}

/** A values answer of 200 must hold what the attacker just wrote. */
function wroteOwn(answer: Answer, marker: string): string | undefined {
  return answer.status === 200 && !answer.text.includes(marker) ? `answers without the value just written` : undefined;
}

/** A JSON-RPC request calling MCP tool `name`. */
function rpc(name: string, args: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
}

/** The name of the victim's entity in `user`'s knowledge graph (seeded through /mcp). */
function victimEntity(victim: Victim, user: string): string {
  return `${victim.token}-graph-${user}`;
}

/**
 * Probes per route of the API. The key is the route as the OpenAPI document names it: a
 * documented route without a case fails the test, so a new route needs its probes here.
 */
const CASES: Readonly<Record<string, Case>> = {
  'GET /healthz': () => [{ method: 'GET', path: '/healthz', expect: [200] }],
  // Who the key is: only ever the attacker's own tenant and user, however it asks.
  'GET /auth/session': ({ attacker }) => [
    { method: 'GET', path: '/auth/session', expect: [200], check: (answer) => ownPrincipal(answer, attacker) },
  ],
  // A browser session cannot open another one without the key itself.
  'POST /auth/session': ({ attacker }) =>
    [{}, { ttlSeconds: 60 }, { key: attacker.key }].map((body) => ({
      method: 'POST',
      path: '/auth/session',
      body,
      expect: attacker.cookie !== undefined && !('key' in body) ? [401] : [200],
      check: (answer: Answer) => (answer.status === 200 ? ownPrincipal(answer, attacker) : undefined),
    })),
  'DELETE /auth/session': () => [{ method: 'DELETE', path: '/auth/session', expect: [204] }],
  'GET /readyz': () => [{ method: 'GET', path: '/readyz', expect: [200] }],
  // Labelled by route pattern: not even the ids the probes sent may show.
  'GET /metrics': ({ victim }) => [
    {
      method: 'GET',
      path: '/metrics',
      expect: [200],
      check: (answer) => {
        const named = victim.sessions.filter(({ id }) => answer.text.includes(id));
        return named.length > 0 ? `names ${named.map(({ id }) => id).join(', ')}` : undefined;
      },
    },
  ],

  // The web session browser's page and assets: the same for every caller, no data in them.
  'GET /': () => [{ method: 'GET', path: '/', expect: [200] }],
  'GET /assets/{file}': () => [
    { method: 'GET', path: `/assets/${FIXTURE_ASSET}`, expect: [200] },
    { method: 'GET', path: '/assets/no-such-file.js', expect: [404] },
  ],

  'GET /sessions': (context) => {
    const { victim } = context;
    const queries = [
      '',
      `?cursor=${enc(context.victimCursor)}`,
      ...probeUsers(victim).map((user) => `?userId=${enc(user)}`),
      ...victim.agents.map((agent) => `?agentId=${enc(agent)}`),
      // The search reads list rows itself: only the caller's view, however it words the query.
      `?q=${enc(victim.token)}`,
      ...probeSessions(victim).map(({ id }) => `?q=${enc(id)}`),
      ...probeUsers(victim).map((user) => `?q=${enc(user)}&updatedAfter=2000-01-01T00:00:00Z`),
      `?q=${enc(victim.tenant)}&cursor=${enc(context.victimCursor)}`,
    ];
    return [
      ...queries.map((query) => ({
        method: 'GET',
        path: `/sessions${query}`,
        expect: [200],
        check: (answer: Answer) => rowsProblem(rowsOf(answer), context),
      })),
      { method: 'GET', path: '/sessions?limit=1', expect: [200], check: (answer) => walkProblem(answer, context) },
    ];
  },

  'POST /sessions': (context) => {
    const { attacker, victim } = context;
    return probeSessions(victim).flatMap(({ id, userId }) =>
      creations(attacker, victim, id, userId).map(({ owner, expected }): Probe => {
        return {
          method: 'POST',
          path: '/sessions',
          body: {
            id,
            ...(owner === undefined ? {} : { userId: owner }),
            agentId: victim.agents[0],
            messages: [message('m1', context.mark())],
          },
          expect: expected,
          check: async (answer) => {
            const wanted = owner ?? attacker.userId;
            const got = (answer.json as { userId?: string } | undefined)?.userId;
            if (answer.status === 201 && got !== wanted) return `created for user ${got}, not ${wanted}`;
            return createdProblem(context, answer, id);
          },
        };
      }),
    );
  },

  // A whole save at the victim's ids: created in the attacker's namespace, or refused. Where the id
  // is the victim's in the attacker's own tenant, a tenant-wide key only tries a create (If-Match
  // "0"): replacing it would be its right; a key bound to another user is refused either way.
  'PUT /sessions/{id}': (context) => {
    const { attacker, victim } = context;
    return probeSessions(victim).flatMap(({ id, userId }) =>
      creations(attacker, victim, id, userId).flatMap(({ owner, expected }) =>
        headerSets({ 'if-match': '"0"' }, {})
          .filter(
            (headers) => 'if-match' in headers || attacker.userId !== undefined || !victimsInOwnTenant(victim, id),
          )
          .map((headers): Probe => ({
            method: 'PUT',
            path: `/sessions/${id}`,
            headers,
            body: {
              session: {
                formatVersion: 1,
                id,
                ...(owner === undefined ? {} : { userId: owner }),
                agentId: victim.agents[0],
                createdAt: '2030-01-01T00:00:00.000Z',
                updatedAt: '2030-01-01T00:00:00.000Z',
                version: 0,
                messages: [message('m1', context.mark())],
                variables: {},
                metadata: {},
              },
            },
            expect: expected.includes(201) ? [200] : victimsInOwnTenant(victim, id) ? [403, 404, 412] : expected,
            check: async (answer) => {
              const wanted = owner ?? attacker.userId;
              const got = (answer.json as { userId?: string } | undefined)?.userId;
              if (answer.status === 200 && got !== wanted) return `saved for user ${got}, not ${wanted}`;
              return createdProblem(context, { ...answer, status: answer.status === 200 ? 201 : answer.status }, id);
            },
          })),
      ),
    );
  },

  // Only the attacker's own tenant's expired sessions: the victim's data is checked after the matrix.
  'POST /purge-expired': ({ attacker }) => [
    { method: 'POST', path: '/purge-expired', expect: attacker.admin ? [200] : [403] },
  ],

  'GET /sessions/{id}': ({ victim }) =>
    probeSessions(victim).map(({ id }) => ({ method: 'GET', path: `/sessions/${id}`, expect: [404] })),

  // The browser's views of a session: not one of them may tell that the victim's session exists.
  'GET /sessions/{id}/summary': (context) => [
    ...probeSessions(context.victim).map(({ id }) => ({
      method: 'GET',
      path: `/sessions/${id}/summary`,
      expect: [404],
    })),
    // The attacker's own row lists its forks: only ever its own names.
    {
      method: 'GET',
      path: `/sessions/${context.ownSession}/summary`,
      expect: [200],
      check: (answer: Answer) => forksProblem(context, answer),
    },
  ],
  'GET /sessions/{id}/stats': ({ victim }) =>
    probeSessions(victim).map(({ id }) => ({ method: 'GET', path: `/sessions/${id}/stats`, expect: [404] })),
  'GET /sessions/{id}/timeline': ({ victim }) =>
    probeSessions(victim).flatMap(({ id }) =>
      ['', '?points=1'].map((query) => ({
        method: 'GET',
        path: `/sessions/${id}/timeline${query}`,
        expect: [404],
      })),
    ),

  // A LangGraph thread's view: by either of a thread's ids (conversation, checkpoint log), at a checkpoint or not.
  'GET /sessions/{id}/thread': ({ victim }) =>
    probeSessions(victim).flatMap(({ id }) =>
      [id, `${id}.cp`].flatMap((target) =>
        ['', '?checkpoint=x&limit=1'].map((query) => ({
          method: 'GET',
          path: `/sessions/${target}/thread${query}`,
          expect: [404],
        })),
      ),
    ),

  'DELETE /sessions/{id}': ({ victim }) =>
    probeSessions(victim).map(({ id }) => ({ method: 'DELETE', path: `/sessions/${id}`, expect: [404] })),

  'GET /sessions/{id}/messages': ({ victim }) =>
    probeSessions(victim).flatMap(({ id }) =>
      ['', '?afterSeq=0&limit=10'].map((query) => ({
        method: 'GET',
        path: `/sessions/${id}/messages${query}`,
        expect: [404],
      })),
    ),

  'POST /sessions/{id}/messages': (context) =>
    probeSessions(context.victim).flatMap(({ id }) =>
      headerSets({}, { 'if-match': '"1"' }, { 'if-match': '"2"' }).map((headers) => ({
        method: 'POST',
        path: `/sessions/${id}/messages`,
        headers,
        // The victim's message id: a duplicate would answer differently from a new message.
        body: { messages: [message('m1', context.mark())] },
        // 404 even with If-Match: a 412 would tell that the session exists, at another version.
        expect: [404],
      })),
    ),

  'POST /sessions/{id}/tail': (context) =>
    probeSessions(context.victim).flatMap(({ id }) =>
      headerSets({ 'if-match': '"1"' }, { 'if-match': '"2"' }).map((headers) => ({
        method: 'POST',
        path: `/sessions/${id}/tail`,
        headers,
        // A pop of everything, and the victim's message id: either would change the victim's session.
        body: { afterSeq: 0, messages: [message('m1', context.mark())] },
        // 404 whatever the If-Match: a 412 would tell that the session exists, at another version.
        expect: [404],
      })),
    ),

  'GET /sessions/{id}/events': ({ victim }) =>
    probeSessions(victim).flatMap(({ id }) =>
      headerSets({}, { 'last-event-id': '0' }).map((headers) => ({
        method: 'GET',
        path: `/sessions/${id}/events`,
        headers,
        // Refused before any stream opens: a `ready` event would tell the victim's version.
        expect: [404],
      })),
    ),

  'POST /sessions/{id}/compact': ({ victim }) =>
    probeSessions(victim).flatMap(({ id }) =>
      [{}, { dryRun: true }].map((options) => ({
        method: 'POST',
        path: `/sessions/${id}/compact`,
        body: { strategy: 'messageLimit', maxMessages: 1, ...options },
        expect: [404],
      })),
    ),

  'POST /sessions/{id}/fork': (context) => [
    ...probeSessions(context.victim).flatMap(({ id }) =>
      [{}, { id: context.ownSession }].map((target) => ({
        method: 'POST',
        path: `/sessions/${id}/fork`,
        body: { atMessageId: 'm1', ...target },
        expect: [404],
      })),
    ),
    // From the attacker's own session to the victim's id: the fork lands in the attacker's namespace.
    ...probeSessions(context.victim).map(({ id }) => ({
      method: 'POST',
      path: `/sessions/${context.ownSession}/fork`,
      body: { atMessageId: 'm1', id },
      expect: victimsInOwnTenant(context.victim, id) ? [403, 409] : [201],
      check: (answer: Answer) => createdProblem(context, answer, id),
    })),
    // The source lists the forks just made under the ids the attacker gave, and not a refused one.
    {
      method: 'GET',
      path: `/sessions/${context.ownSession}/summary`,
      expect: [200],
      check: async (answer: Answer) => {
        const forks = (answer.json as { forks?: string[] } | undefined)?.forks ?? [];
        const made = probeSessions(context.victim)
          .map(({ id }) => id)
          .filter((id) => !victimsInOwnTenant(context.victim, id));
        const unlisted = made.filter((id) => !forks.includes(id));
        if (unlisted.length > 0) return `does not list its forks ${unlisted.join(', ')}`;
        return forksProblem(context, answer);
      },
    },
  ],

  'POST /sessions/{id}/turns': (context) => {
    const { attacker, victim } = context;
    return probeSessions(victim).flatMap(({ id, userId }) => [
      // The turn runs in the attacker's namespace (a new session there), or is refused.
      ...creations(attacker, victim, id, userId).map(({ owner, expected }): Probe => {
        return {
          method: 'POST',
          path: `/sessions/${id}/turns`,
          // The victim's message id: a turn that reached the victim's session would find it stored.
          body: { input: [message('m1', context.mark())], ...(owner === undefined ? {} : { userId: owner }) },
          expect: expected,
          check: (answer) => turnProblem(context, answer, id, owner ?? attacker.userId),
        };
      }),
      // The victim's agent is not one of this server's: refused before anything runs.
      {
        method: 'POST',
        path: `/sessions/${id}/turns`,
        body: { input: context.mark(), agentId: victim.agents[0] },
        expect: [400],
      },
    ]);
  },

  'POST /sessions/{id}/continue': ({ victim }) =>
    probeSessions(victim).map(({ id }) => ({ method: 'POST', path: `/sessions/${id}/continue`, expect: [404] })),

  'GET /sessions/{id}/values': ({ attacker, victim }) =>
    probeSessions(victim).map(({ id }) => ({
      method: 'GET',
      path: `/sessions/${id}/values`,
      // A tenant-wide key reads its own tenant's namespace of that id (values may precede their
      // session); a key bound to a user finds no session of its user.
      expect: attacker.userId === undefined ? [200] : [404],
    })),

  'PATCH /sessions/{id}/values': (context) =>
    probeSessions(context.victim).map(({ id }) => {
      const marker = context.mark();
      return {
        method: 'PATCH',
        path: `/sessions/${id}/values`,
        body: { colour: marker },
        expect: context.attacker.userId === undefined ? [200] : [404],
        check: (answer) => wroteOwn(answer, marker),
      };
    }),

  // A member key is refused. An admin's request names a user of its own tenant whatever it spells:
  // the victim's stored spelling (`tenant-b/bob`) names the admin's own `tenant-a/tenant-b/bob`, and
  // the victim's data must come out byte for byte (checked after the matrix). The victim's plain
  // names are not sent with an admin key: in tenant A they are the attacker's own users, whose
  // sessions the other cases use.
  'DELETE /users/{userId}': ({ attacker, victim }) =>
    probeUsers(victim)
      .filter((user) => !attacker.admin || user.startsWith(`${victim.tenant}/`))
      .map((user) => ({
        method: 'DELETE',
        path: `/users/${enc(user)}`,
        expect: attacker.admin ? [200] : [403],
        check: (answer) =>
          answer.status === 200 && (answer.json as { userId?: unknown } | undefined)?.userId !== user
            ? `answers the receipt of ${JSON.stringify((answer.json as { userId?: unknown } | undefined)?.userId)}`
            : undefined,
      })),

  // The victim's messages by ref, spelled both ways, among the attacker's own: every victim ref reads as null.
  'POST /messages/at': (context) => {
    const victimRefs = probeSessions(context.victim).flatMap(({ id }) =>
      [1, 2, 3].map((seq) => ({ sessionId: id, seq })),
    );
    const refs = [{ sessionId: context.ownSession, seq: 1 }, ...victimRefs];
    return [
      {
        method: 'POST',
        path: '/messages/at',
        body: { refs },
        expect: [200],
        check: (answer: Answer) => {
          const messages = (answer.json as { messages?: unknown[] } | undefined)?.messages ?? [];
          if (messages.length !== refs.length) return `answers ${messages.length} entries for ${refs.length} refs`;
          if (messages[0] === null) return "does not read the attacker's own message";
          const read = messages.slice(1).filter((message) => message !== null);
          return read.length > 0 ? `reads ${JSON.stringify(read).slice(0, 200)}` : undefined;
        },
      },
    ];
  },

  // A key bound to a user names no other (403). What a key is answered is what its own listing of
  // that user holds (marks carry no owner to check), and none of the victim's sessions.
  'GET /users/{userId}/marks': (context) =>
    probeUsers(context.victim).map((user) => ({
      method: 'GET',
      path: `/users/${enc(user)}/marks`,
      expect: userAllowed(context.attacker, user) ? [200] : [403],
      check: async (answer: Answer) => {
        if (answer.status !== 200) return undefined;
        const marks = ((answer.json as { marks?: ListRow[] } | undefined)?.marks ?? []).map((mark) => mark.id);
        const listed = await context.call('GET', `/sessions?userId=${enc(user)}&kinds=all&limit=1000`);
        const own = rowsOf(listed).map((row) => row.id);
        if (JSON.stringify([...marks].sort()) !== JSON.stringify(own.sort()))
          return `answers the marks of ${marks.join(', ')}, its listing has ${own.join(', ')}`;
        return rowsProblem(rowsOf(listed), context);
      },
    })),

  'GET /values/users/{userId}': ({ attacker, victim }) =>
    probeUsers(victim).map((user) => ({
      method: 'GET',
      path: `/values/users/${enc(user)}`,
      expect: userAllowed(attacker, user) ? [200] : [403],
    })),

  'PATCH /values/users/{userId}': (context) =>
    probeUsers(context.victim).map((user) => {
      const marker = context.mark();
      return {
        method: 'PATCH',
        path: `/values/users/${enc(user)}`,
        body: { colour: marker },
        expect: userAllowed(context.attacker, user) ? [200] : [403],
        check: (answer) => wroteOwn(answer, marker),
      };
    }),

  'GET /values/agents/{agentId}/users/{userId}': ({ attacker, victim }) =>
    victim.agents.flatMap((agent) =>
      probeUsers(victim).map((user) => ({
        method: 'GET',
        path: `/values/agents/${enc(agent)}/users/${enc(user)}`,
        expect: userAllowed(attacker, user) ? [200] : [403],
      })),
    ),

  'PATCH /values/agents/{agentId}/users/{userId}': (context) =>
    context.victim.agents.flatMap((agent) =>
      probeUsers(context.victim).map((user) => {
        const marker = context.mark();
        return {
          method: 'PATCH',
          path: `/values/agents/${enc(agent)}/users/${enc(user)}`,
          body: { colour: marker },
          expect: userAllowed(context.attacker, user) ? [200] : [403],
          check: (answer) => wroteOwn(answer, marker),
        };
      }),
    ),

  'POST /recall': ({ attacker, victim }) =>
    probeUsers(victim).flatMap((user) =>
      victim.sessions.map(({ id }) => ({
        method: 'POST',
        path: '/recall',
        // The victim's own words: a hit would be the victim's message.
        body: { userId: user, query: `${victim.token}-${id}-m1` },
        expect: userAllowed(attacker, user) ? [200] : [200, 403],
        // Recall may find the attacker's own messages (a word one letter off the victim's name is a
        // near word): a leak is a hit holding the victim's words.
        check: (answer: Answer) => {
          const hits = (answer.json as { hits?: unknown[] } | undefined)?.hits;
          return answer.status === 200 && JSON.stringify(hits ?? []).includes(victim.token)
            ? `recalls ${JSON.stringify(hits)}`
            : undefined;
        },
      })),
    ),

  // MCP: every tool and resource through the view of the key (its tenant, its user). A key bound
  // to a user names no other (403); a tenant-wide key names users of its own tenant only, whatever
  // it spells. The victim's data must not be in any answer (checked for every request).
  'POST /mcp': (context) => {
    const { attacker, victim } = context;
    const requests = [
      rpc('read_graph'),
      rpc('search_nodes', { query: victim.token }),
      rpc('open_nodes', { names: victim.users.map((each) => victimEntity(victim, each)) }),
      rpc('recall', { query: `${victim.token} fact` }),
      rpc('get_value', { key: 'colour', scope: 'user' }),
      rpc('get_value', { key: 'colour', scope: 'agent', agentId: victim.agents[0] }),
      rpc('read_working_memory'),
      rpc('list_sessions', { includeInternal: true, limit: 100 }),
      { jsonrpc: '2.0', id: 2, method: 'resources/list' },
      ...probeSessions(victim).flatMap(({ id }) => [
        rpc('read_messages', { sessionId: id }),
        rpc('get_value', { key: 'colour', scope: 'session', sessionId: id }),
        { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: `chatstate://sessions/${enc(id)}` } },
      ]),
      // Writes: into the caller's own namespace, never the victim's (the victim's data is compared after).
      rpc('create_entities', { entities: [{ name: context.mark(), entityType: 'probe', observations: [] }] }),
      rpc('delete_entities', { entityNames: victim.users.map((each) => victimEntity(victim, each)) }),
      rpc('remember', { text: context.mark() }),
      rpc('patch_working_memory', { patch: { note: context.mark() } }),
      rpc('set_value', { key: 'colour', value: context.mark(), scope: 'user' }),
    ];
    return [undefined, ...probeUsers(victim)]
      .filter((user) => !attacker.admin || user === undefined || user.startsWith(`${victim.tenant}/`))
      .flatMap((user) =>
        requests.map((body) => ({
          method: 'POST',
          path: `/mcp${user === undefined ? '' : `?user=${enc(user)}`}`,
          body,
          expect: user === undefined || userAllowed(attacker, user) ? [200] : [403],
        })),
      );
  },

  'GET /working-memory/users/{userId}': ({ attacker, victim }) =>
    probeUsers(victim).flatMap((user) =>
      [undefined, ...victim.agents].map((agent) => ({
        method: 'GET',
        path: `/working-memory/users/${enc(user)}${agent === undefined ? '' : `?agentId=${enc(agent)}`}`,
        expect: userAllowed(attacker, user) ? [200] : [403],
      })),
    ),

  'GET /working-memory/users/{userId}/versions': ({ attacker, victim }) =>
    probeUsers(victim).flatMap((user) =>
      [undefined, ...victim.agents].map((agent) => ({
        method: 'GET',
        path: `/working-memory/users/${enc(user)}/versions${agent === undefined ? '' : `?agentId=${enc(agent)}`}`,
        expect: userAllowed(attacker, user) ? [200] : [403],
      })),
    ),

  'PATCH /working-memory/users/{userId}': (context) =>
    probeUsers(context.victim).flatMap((user) =>
      [undefined, ...context.victim.agents].map((agent) => {
        const marker = context.mark();
        return {
          method: 'PATCH',
          path: `/working-memory/users/${enc(user)}`,
          body: { patch: { note: marker }, ...(agent === undefined ? {} : { agentId: agent }) },
          expect: userAllowed(context.attacker, user) ? [200] : [403],
          check: (answer: Answer) => wroteOwn(answer, marker),
        };
      }),
    ),

  'POST /knowledge/users/{userId}': (context) =>
    probeUsers(context.victim).flatMap((user) => {
      const marker = context.mark();
      return [
        {
          method: 'POST',
          path: `/knowledge/users/${enc(user)}`,
          body: { text: marker },
          expect: userAllowed(context.attacker, user) ? [201] : [403],
          check: (answer: Answer) =>
            answer.status === 201 && !answer.text.includes(marker) ? 'answers without the fact just stored' : undefined,
        },
        // A correction of the victim's fact: no such fact in the attacker's reach.
        ...context.victim.facts.map((fact) => ({
          method: 'POST',
          path: `/knowledge/users/${enc(user)}`,
          body: { text: context.mark(), supersedes: fact },
          expect: userAllowed(context.attacker, user) ? [404] : [403],
        })),
      ];
    }),

  'DELETE /knowledge/users/{userId}/facts/{factId}': ({ attacker, victim }) =>
    probeUsers(victim).flatMap((user) =>
      victim.facts.map((fact) => ({
        method: 'DELETE',
        path: `/knowledge/users/${enc(user)}/facts/${enc(fact)}`,
        expect: userAllowed(attacker, user) ? [404] : [403],
      })),
    ),

  'POST /state/encode': (context) => [
    {
      method: 'POST',
      path: '/state/encode',
      body: { provider: PROVIDER, messages: [message('s1', context.mark())] },
      expect: [200],
    },
  ],

  'POST /state/decode': ({ victim }) =>
    [...victim.blobs, 'not-a-state-blob'].map((state) => ({
      method: 'POST',
      path: '/state/decode',
      body: { provider: PROVIDER, state },
      // Signed with the victim tenant's subkey: rejected, an empty history.
      expect: [200],
      check: (answer: Answer) => {
        const decoded = answer.json as { messages?: unknown[]; rejected?: unknown } | undefined;
        return decoded?.rejected === undefined || decoded.messages?.length !== 0 ? 'opens the blob' : undefined;
      },
    })),

  'POST /state/append': (context) =>
    [...context.victim.blobs, undefined].map((state) => {
      const marker = context.mark();
      return {
        method: 'POST',
        path: '/state/append',
        body: { provider: PROVIDER, ...(state === undefined ? {} : { state }), messages: [message('s1', marker)] },
        expect: [200],
        check: async (answer: Answer) => {
          const appended = answer.json as { state?: string; rejected?: unknown } | undefined;
          if (state !== undefined && appended?.rejected === undefined) return "appends to the victim's blob";
          // The new blob holds the attacker's message alone (its decoded text is checked for the victim's data).
          const decoded = await context.call('POST', '/state/decode', {
            body: { provider: PROVIDER, state: appended?.state },
          });
          const messages = (decoded.json as { messages?: Array<{ content?: unknown }> } | undefined)?.messages ?? [];
          return messages.length === 1 && messages[0]?.content === marker
            ? undefined
            : `the new blob holds ${decoded.text}`;
        },
      };
    }),

  // The batch writes any owner's values: the same answers as the PATCH of each owner's route.
  'POST /values/batch': (context) => {
    const { attacker, victim } = context;
    const targets = [
      ...probeUsers(victim).map((user) => ({
        owner: { scope: 'user', userId: user },
        expect: userAllowed(attacker, user) ? [204] : [403],
      })),
      ...victim.agents.flatMap((agent) =>
        probeUsers(victim).map((user) => ({
          owner: { scope: 'agent', agentId: agent, userId: user },
          expect: userAllowed(attacker, user) ? [204] : [403],
        })),
      ),
      ...probeSessions(victim).map(({ id }) => ({
        owner: { scope: 'session', sessionId: id },
        expect: attacker.userId === undefined ? [204] : [404],
      })),
      { owner: { scope: 'app' }, expect: attacker.admin ? [204] : [403] },
    ];
    return targets.map(({ owner, expect }) => ({
      method: 'POST',
      path: '/values/batch',
      body: { owner, set: { colour: context.mark() } },
      expect,
    }));
  },

  'GET /values/app': () => [{ method: 'GET', path: '/values/app', expect: [200] }],

  'PATCH /values/app': (context) => {
    const marker = context.mark();
    return [
      {
        method: 'PATCH',
        path: '/values/app',
        body: { plan: marker },
        expect: context.attacker.admin ? [200] : [403],
        check: (answer) => wroteOwn(answer, marker),
      },
    ];
  },
};

/** The value owners of the victim, in the store's own names. */
function rawOwners(victim: Victim): Array<[string, ValueOwner]> {
  const user = (id: string) => `${victim.tenant}/${id}`;
  return [
    ...victim.sessions.map((session): [string, ValueOwner] => {
      const sessionId = `${victim.tenant}.${session.id}`;
      return [`session ${sessionId}`, { scope: 'session', sessionId }];
    }),
    ...victim.users.map((id): [string, ValueOwner] => [`user ${user(id)}`, { scope: 'user', userId: user(id) }]),
    ...victim.agents.flatMap((agentId) =>
      victim.users.map((id): [string, ValueOwner] => [
        `agent ${agentId} ${user(id)}`,
        { scope: 'agent', agentId, userId: user(id) },
      ]),
    ),
    // A tenant's app scope is stored as the values of user `TENANT/` (see TenantNames.appUser).
    ...(victim.app ? [['app', { scope: 'user', userId: `${victim.tenant}/` }] as [string, ValueOwner]] : []),
  ];
}

/** Everything of the victim's, read straight from the store, as one text. */
async function rawView(raw: SessionStore, victim: Victim): Promise<string> {
  // Read at once (it runs after every write of the matrix): the parts keep their order.
  const parts = await Promise.all([
    raw
      .list({
        idPrefix: `${victim.tenant}.`,
        limit: 1000,
        ...(victim.user === undefined ? {} : { userId: `${victim.tenant}/${victim.user}` }),
      })
      .then((rows) => `list ${JSON.stringify(rows)}`),
    ...victim.sessions.map(async (session) => {
      const id = `${victim.tenant}.${session.id}`;
      return `session ${id} ${(await raw.getJson(id)) ?? 'absent'}`;
    }),
    ...rawOwners(victim).map(async ([name, owner]) => `${name} ${JSON.stringify(await raw.values.getAll(owner))}`),
    // Knowledge and working memories: sessions of the tenant, under ids derived from the tenant's own user ids.
    ...victim.users.map(async (user) => {
      const id = `${victim.tenant}.${knowledgeSessionId(user)}`;
      return `knowledge ${id} ${(await raw.getJson(id)) ?? 'absent'}`;
    }),
    ...victim.users.flatMap((user) =>
      [undefined, ...victim.agents].map(async (agent) => {
        const id = `${victim.tenant}.${workingMemorySessionId(user, agent)}`;
        return `working memory ${id} ${(await raw.getJson(id)) ?? 'absent'}`;
      }),
    ),
    ...victim.users.map(async (user) => {
      const id = `${victim.tenant}.${knowledgeGraphSessionId(user)}`;
      return `knowledge graph ${id} ${(await raw.getJson(id)) ?? 'absent'}`;
    }),
  ]);
  return parts.join('\n');
}

/** Everything of the victim's, read through the API with the victim's reader key, as one text. */
async function apiView(server: TestServer, victim: Victim): Promise<string> {
  const paths = [
    `/sessions${victim.user === undefined ? '' : `?userId=${enc(victim.user)}`}`,
    ...victim.sessions.flatMap(({ id }) => [`/sessions/${id}`, `/sessions/${id}/messages`, `/sessions/${id}/values`]),
    ...victim.users.map((user) => `/values/users/${enc(user)}`),
    ...victim.agents.flatMap((agent) => victim.users.map((user) => `/values/agents/${enc(agent)}/users/${enc(user)}`)),
    ...(victim.app ? ['/values/app'] : []),
    ...victim.users.flatMap((user) =>
      [undefined, ...victim.agents].flatMap((agent) => {
        const query = agent === undefined ? '' : `?agentId=${enc(agent)}`;
        return [`/working-memory/users/${enc(user)}${query}`, `/working-memory/users/${enc(user)}/versions${query}`];
      }),
    ),
  ];
  const parts: string[] = [];
  for (const path of paths) {
    const answer = await server.call('GET', path, { key: victim.readerKey });
    parts.push(`${path} ${answer.status} ${answer.headers.get('etag') ?? ''} ${answer.text}`);
  }
  return parts.join('\n');
}

/** Sends a request that must answer `status` (setting up, not under test). */
async function expectStatus(answer: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const got = await answer;
  if (got.status !== status) throw new Error(`${what}: ${got.status} ${got.text}`);
  return got;
}

/** Writes the victim's data through the API, each piece with a marker holding the victim's token. */
async function seed(server: TestServer, victim: Victim): Promise<void> {
  const mark = (what: string) => `${victim.token}-${what}`;
  for (const { id, userId } of victim.sessions) {
    const key = victim.writerKey(userId);
    const body = {
      id,
      ...(userId === undefined ? {} : { userId }),
      agentId: victim.agents[0],
      messages: [message('m1', mark(`${id}-m1`))],
      variables: { secret: mark(`${id}-variable`) },
      metadata: { note: mark(`${id}-metadata`) },
    };
    await expectStatus(server.call('POST', '/sessions', { key, body }), 201, `seeding session ${id}`);
    await expectStatus(
      server.call('POST', `/sessions/${id}/messages`, {
        key,
        headers: { 'if-match': '"1"' },
        body: { messages: [message('m2', mark(`${id}-m2`))] },
      }),
      200,
      `seeding messages of ${id}`,
    );
    await expectStatus(
      server.call('PATCH', `/sessions/${id}/values`, { key, body: { colour: mark(`${id}-value`) } }),
      200,
      `seeding values of ${id}`,
    );
  }
  for (const user of victim.users) {
    const key = victim.writerKey(user);
    await expectStatus(
      server.call('PATCH', `/values/users/${enc(user)}`, { key, body: { colour: mark(`user-${user}`) } }),
      200,
      `seeding values of user ${user}`,
    );
    for (const agent of victim.agents) {
      await expectStatus(
        server.call('PATCH', `/values/agents/${enc(agent)}/users/${enc(user)}`, {
          key,
          body: { colour: mark(`agent-${agent}-${user}`) },
        }),
        200,
        `seeding values of agent ${agent} for ${user}`,
      );
    }
  }
  for (const user of victim.users) {
    const remembered = await expectStatus(
      server.call('POST', `/knowledge/users/${enc(user)}`, {
        key: victim.writerKey(user),
        body: { text: mark(`fact-${user}`) },
      }),
      201,
      `seeding a fact of ${user}`,
    );
    victim.facts.push((remembered.json as { id: string }).id);
    for (const agent of [undefined, ...victim.agents]) {
      await expectStatus(
        server.call('PATCH', `/working-memory/users/${enc(user)}`, {
          key: victim.writerKey(user),
          body: {
            patch: { note: mark(`working-memory-${agent ?? 'user'}-${user}`) },
            ...(agent === undefined ? {} : { agentId: agent }),
          },
        }),
        200,
        `seeding the working memory of ${user}${agent === undefined ? '' : ` with ${agent}`}`,
      );
    }
  }
  for (const user of victim.users) {
    const seeded = await expectStatus(
      server.call('POST', `/mcp?user=${enc(user)}`, {
        key: victim.writerKey(user),
        body: rpc('create_entities', {
          entities: [{ name: victimEntity(victim, user), entityType: 'person', observations: [mark(`graph-${user}`)] }],
        }),
      }),
      200,
      `seeding the knowledge graph of ${user}`,
    );
    if (!seeded.text.includes(mark(`graph-${user}`))) throw new Error(`seeding the graph of ${user}: ${seeded.text}`);
  }
  if (victim.app) {
    await expectStatus(
      server.call('PATCH', '/values/app', { key: victim.readerKey, body: { plan: mark('app') } }),
      200,
      'seeding app values',
    );
    for (const encrypt of [false, true]) {
      const encoded = await expectStatus(
        server.call('POST', '/state/encode', {
          key: victim.readerKey,
          body: { provider: PROVIDER, messages: [message('s1', mark(`blob-${encrypt}`))], encrypt },
        }),
        200,
        'seeding a state blob',
      );
      victim.blobs.push((encoded.json as { state: string }).state);
    }
  }
}

/** What a matrix run found. */
interface MatrixReport {
  /** Requests sent with the attackers' keys. */
  readonly requests: number;
  /** Answers to an attacker that held any of the victim's data. */
  readonly crossReads: number;
  /** Attacker cases (a route's requests by one key) after which the victim's stored data was not what it was before. */
  readonly crossWrites: number;
  readonly problems: readonly string[];
  /** Routes of the document without a case. */
  readonly uncovered: readonly string[];
  /** Each route, with the attackers that probed it. */
  readonly coverage: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Every route of the document, with every attacker key, aimed at the victim's data. `anchors`
 * gives, per attacker, its sessions made before the victim's data (see `walkProblem`).
 */
async function runMatrix(
  server: TestServer,
  raw: SessionStore,
  routes: readonly DocRoute[],
  attackers: readonly Attacker[],
  victim: Victim,
  anchors: (attacker: Attacker) => readonly string[],
): Promise<MatrixReport> {
  const documented = new Set(routes.map((route) => route.key));
  const problems = Object.keys(CASES)
    .filter((key) => !documented.has(key))
    .map((key) => `a case for ${key}, which the document does not have`);
  const coverage = new Map<string, Set<string>>();
  let requests = 0;
  let crossReads = 0;
  let crossWrites = 0;

  const page = await server.call(
    'GET',
    `/sessions?limit=1${victim.user === undefined ? '' : `&userId=${victim.user}`}`,
    {
      key: victim.readerKey,
    },
  );
  const victimCursor = (page.json as { nextCursor?: string } | undefined)?.nextCursor;
  if (victimCursor === undefined) throw new Error(`the victim's list gave no cursor: ${page.text}`);
  let before = await rawView(raw, victim);

  /** The writes sent since the victim's stored data was last compared. */
  let wrote: string[] = [];

  /** Sends a request with the attacker's key; counts an answer holding the victim's data, and notes a write. */
  async function send(attacker: Attacker, method: string, path: string, options: Omit<CallOptions, 'key'> = {}) {
    requests += 1;
    // A browser session sends its cookie from the server's own page, as the web session browser does.
    const as =
      attacker.cookie === undefined
        ? { key: attacker.key }
        : { headers: { ...options.headers, cookie: attacker.cookie, 'sec-fetch-site': 'same-origin' } };
    const answer = await boundedCall(server.url, method, path, { ...options, ...as }, READ_MS);
    const where = `${attacker.name} ${method} ${path}`;
    if (answer.cut) problems.push(`${where}: still answering after ${READ_MS} ms (a stream?)`);
    const headers = [...answer.headers.entries()].map(([name, value]) => `${name}: ${value}`).join('\n');
    if (`${answer.text}\n${headers}`.includes(victim.token)) {
      crossReads += 1;
      problems.push(`${where}: the answer holds the victim's data: ${answer.text.slice(0, 300)}`);
    }
    if (method !== 'GET') wrote.push(`${method} ${path}`);
    return answer;
  }

  /**
   * After the requests of one attacker's case: when any of them wrote, the victim's stored data must
   * be what it was. (Read once a case rather than once a write: the view is most of the matrix's time.)
   */
  async function checkVictim(attacker: Attacker, what: string): Promise<void> {
    if (wrote.length === 0) return;
    const requests = wrote;
    wrote = [];
    const after = await rawView(raw, victim);
    if (after === before) return;
    crossWrites += 1;
    problems.push(`${attacker.name} ${what}: one of ${requests.join(', ')} changed the victim's stored data`);
    before = after;
  }

  let counter = 0;
  for (const attacker of attackers) {
    const ownSession = `own-${attacker.name}`;
    await expectStatus(
      send(attacker, 'POST', '/sessions', {
        body: { id: ownSession, messages: [message('m1', `attacker-${attacker.name}-own`)] },
      }),
      201,
      `${attacker.name} creating its own session`,
    );
    await checkVictim(attacker, 'creating its own session');
    const context: CaseContext = {
      attacker,
      victim,
      raw,
      victimCursor,
      ownSession,
      anchors: [...anchors(attacker), ownSession],
      mark: () => `attacker-${attacker.name}-${(counter += 1)}`,
      call: (method, path, options) => send(attacker, method, path, options),
    };
    for (const route of routes) {
      const build = CASES[route.key];
      if (build === undefined) continue;
      const probers = coverage.get(route.key) ?? new Set<string>();
      coverage.set(route.key, probers);
      for (const probe of build(context)) {
        probers.add(attacker.name);
        const answer = await send(attacker, probe.method, probe.path, {
          ...(probe.body === undefined ? {} : { body: probe.body }),
          ...(probe.headers === undefined ? {} : { headers: probe.headers }),
        });
        const where = `${attacker.name} ${probe.method} ${probe.path}`;
        if (!probe.expect.includes(answer.status))
          problems.push(`${where}: ${answer.status} (expected ${probe.expect.join('/')}) ${answer.text.slice(0, 300)}`);
        const wrong = await probe.check?.(answer);
        if (wrong !== undefined) problems.push(`${where}: ${wrong}`);
      }
      await checkVictim(attacker, route.key);
    }
    await raw.delete(`${ATTACKER_TENANT}.${ownSession}`);
  }
  return {
    requests,
    crossReads,
    crossWrites,
    problems,
    uncovered: routes.filter((route) => CASES[route.key] === undefined).map((route) => route.key),
    coverage,
  };
}

async function attackersOf(server: TestServer): Promise<Attacker[]> {
  const { adminA, memberA, aliceA, bobA } = server.keys;
  const login = await server.call('POST', '/auth/session', { body: { key: aliceA } });
  const cookie = login.headers.getSetCookie()[0]?.split(';')[0];
  if (login.status !== 200 || cookie === undefined) throw new Error(`no browser session for alice: ${login.text}`);
  return [
    { name: 'adminA', key: adminA, admin: true },
    { name: 'memberA', key: memberA, admin: false },
    { name: 'aliceA', key: aliceA, admin: false, userId: 'alice' },
    { name: 'bobA', key: bobA, admin: false, userId: 'bob' },
    { name: 'aliceA-cookie', key: aliceA, admin: false, userId: 'alice', cookie },
  ];
}

/** Asserts a run found nothing, and that it probed every documented route with every key. */
function expectClean(report: MatrixReport, routes: readonly DocRoute[], attackers: readonly Attacker[]): void {
  expect(report.uncovered, 'documented routes without a case in CASES').toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.crossReads).toBe(0);
  expect(report.crossWrites).toBe(0);
  expect(report.requests).toBeGreaterThan(routes.length * attackers.length);
  const names = attackers.map((attacker) => attacker.name).sort();
  for (const route of routes) expect([...(report.coverage.get(route.key) ?? [])].sort(), route.key).toEqual(names);
}

/** Tenant A's sessions made before tenant B's data, by owner: each key's list must reach its own. */
const ANCHORS = [
  { id: 'anchor', key: 'adminA' },
  { id: 'anchor-alice', key: 'aliceA', userId: 'alice' },
  { id: 'anchor-bob', key: 'bobA', userId: 'bob' },
] as const;

function anchorsOf(attacker: Attacker): string[] {
  return ANCHORS.filter(
    (anchor) => attacker.userId === undefined || anchor.key === attacker.name.replace(/-cookie$/, ''),
  ).map((anchor) => anchor.id);
}

/** What the model was sent that holds `token` (nothing, when isolation holds). */
function sentToModel(provider: ProtocolServer, token: string): string[] {
  return provider.requests.map((request) => JSON.stringify(request.body)).filter((body) => body.includes(token));
}

describeEachStore(cliStores(), 'tenant isolation over HTTP, $name store', (kind) => {
  let skipped: string | undefined;
  let provider: ProtocolServer | undefined;
  let raw: SessionStore | undefined;
  let server: TestServer | undefined;
  let routes: DocRoute[] = [];
  let tenantB: Victim | undefined;

  beforeAll(async () => {
    skipped = await kind.start();
    if (skipped !== undefined) return;
    raw = await openStore(await kind.freshUrl());
    provider = await startProtocolServer();
    provider.respondWith(scriptedProvider);
    const agents = await loadConfig(provider.url, { agents: [{ id: 'matrix', model: modelSpec('openaiChat') }] });
    server = await startTestServer(raw, { stateKey: STATE_KEY, ...agents });
    routes = documentedRoutes(asDocument((await server.call('GET', '/openapi.json')).json));
    const { adminB, aliceB } = server.keys;
    for (const anchor of ANCHORS)
      await expectStatus(
        server.call('POST', '/sessions', { key: server.keys[anchor.key], body: { id: anchor.id } }),
        201,
        `anchor ${anchor.id}`,
      );
    tenantB = {
      tenant: 'tenant-b',
      token: `b${randomBytes(6).toString('hex')}`,
      readerKey: adminB,
      writerKey: (userId) => (userId === 'alice' ? aliceB : adminB),
      // The same user ids as tenant A's bound keys: a user id means nothing across tenants.
      sessions: [{ id: 'trip-alice', userId: 'alice' }, { id: 'trip-bob', userId: 'bob' }, { id: 'trip-anon' }],
      users: ['alice', 'bob'],
      agents: ['planner-b'],
      app: true,
      blobs: [],
      facts: [],
    };
    await seed(server, tenantB);
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await raw?.close();
    await provider?.close();
    await kind.stop();
  });

  it('no route lets a key of tenant A read or change tenant B', async (context) => {
    if (server === undefined || raw === undefined || tenantB === undefined) return context.skip(skipped);
    const apiBefore = await apiView(server, tenantB);
    const rawBefore = await rawView(raw, tenantB);
    // The views see the data (so an unchanged view is unchanged data), under B's stored names.
    expect(apiBefore).toContain(`${tenantB.token}-trip-anon-m2`);
    expect(rawBefore).toContain(`${tenantB.token}-app`);
    expect(rawBefore).toContain(`${tenantB.token}-fact-alice`);
    expect(rawBefore).toContain(`knowledge graph tenant-b.${knowledgeGraphSessionId('alice')} {`);
    expect(await raw.summary(`tenant-b.${workingMemorySessionId('alice', 'planner-b')}`)).toMatchObject({
      userId: 'tenant-b/alice',
      agentId: 'planner-b',
    });
    expect(apiBefore).toContain(`${tenantB.token}-working-memory-planner-b-alice`);
    expect(await raw.summary('tenant-b.trip-alice')).toMatchObject({ userId: 'tenant-b/alice' });
    // B's recall finds its words and B's blobs open for B: were isolation gone, A would get them too.
    const recalled = await server.call('POST', '/recall', {
      key: tenantB.readerKey,
      body: { userId: 'alice', query: `${tenantB.token}-trip-alice-m1` },
    });
    expect(recalled.text).toContain(`${tenantB.token}-trip-alice-m1`);
    for (const state of tenantB.blobs) {
      const opened = await server.call('POST', '/state/decode', {
        key: tenantB.readerKey,
        body: { provider: PROVIDER, state },
      });
      expect(opened.text).toContain(`${tenantB.token}-blob-`);
    }

    const attackers = await attackersOf(server);
    const report = await runMatrix(server, raw, routes, attackers, tenantB, anchorsOf);
    expectClean(report, routes, attackers);
    expect(await apiView(server, tenantB)).toBe(apiBefore);
    expect(await rawView(raw, tenantB)).toBe(rawBefore);
    // Turns ran (the model was called), and not one call carried B's data.
    expect(provider?.requests.length).toBeGreaterThan(0);
    expect(sentToModel(provider as ProtocolServer, tenantB.token)).toEqual([]);
  }, 180_000);

  it("inside tenant A, alice's key reaches none of bob's sessions or values", async (context) => {
    if (server === undefined || raw === undefined) return context.skip(skipped);
    const { adminA, aliceA, bobA } = server.keys;
    const bob: Victim = {
      tenant: 'tenant-a',
      token: `bob${randomBytes(6).toString('hex')}`,
      user: 'bob',
      readerKey: adminA,
      writerKey: () => bobA,
      sessions: [{ id: 'chat-bob', userId: 'bob' }],
      users: ['bob'],
      agents: ['planner-a'],
      app: false,
      blobs: [],
      facts: [],
    };
    await seed(server, bob);
    // Alice's key works on her own sessions: it only stops at bob's.
    await expectStatus(
      server.call('POST', '/sessions', { key: aliceA, body: { id: 'chat-alice' } }),
      201,
      'chat-alice',
    );
    // Alice's knowledge and working memories (written by the matrix above, with her own key) are sessions of hers too.
    const own = rowsOf(await server.call('GET', '/sessions', { key: aliceA }))
      .map((row) => row.id)
      .filter(
        (id) =>
          !id.startsWith(WORKING_MEMORY_PREFIX) &&
          !id.startsWith(KNOWLEDGE_PREFIX) &&
          !id.startsWith(KNOWLEDGE_GRAPH_PREFIX),
      );
    expect(own.sort()).toEqual(['anchor-alice', 'chat-alice']);
    const apiBefore = await apiView(server, bob);
    const rawBefore = await rawView(raw, bob);
    expect(apiBefore).toContain(`${bob.token}-chat-bob-m2`);

    const attackers = (await attackersOf(server)).filter((attacker) => attacker.userId === 'alice');
    const report = await runMatrix(server, raw, routes, attackers, bob, (attacker) => [
      ...anchorsOf(attacker),
      'chat-alice',
    ]);
    expectClean(report, routes, attackers);
    expect(await apiView(server, bob)).toBe(apiBefore);
    expect(await rawView(raw, bob)).toBe(rawBefore);
    expect(sentToModel(provider as ProtocolServer, bob.token)).toEqual([]);
  }, 180_000);
});
