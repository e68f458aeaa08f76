/**
 * `createServerApp`: chatstate's HTTP API as a Hono app — a fetch handler that runs unchanged on
 * Node (see `serveNode`), Bun, Deno and Workers. Every request gets a request id and one JSON log
 * line; every error answers `{ code, message, details }` with the status of its code.
 * @module
 */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { ClosedError, InvalidInputError, NotFoundError, errorMessage } from '../errors.js';
import { checkPrices, type Prices } from '../session/usage-totals.js';
import type { StateKey } from '../state/types.js';
import type { SessionStore } from '../store/session-store-types.js';
import { AgentSet, type ServerAgent } from './agents/server-agent.js';
import type { KeyRing } from './auth/api-keys.js';
import { authenticate, requireMetricsKey } from './auth/authenticate.js';
import { SessionSigner } from './auth/browser-session.js';
import { ChangeHub, followChanges } from './change-hub.js';
import type { ServerEnv } from './env.js';
import { errorAnswer } from './errors.js';
import { ServerMetrics } from './metrics.js';
import { requestLog, type LogLine } from './request-log.js';
import { authRoutes } from './routes/auth.js';
import { errors } from './routes/common.js';
import { healthRoutes } from './routes/health.js';
import { eventRoutes } from './routes/events.js';
import { messageRoutes } from './routes/messages.js';
import { messagesAtRoutes } from './routes/messages-at.js';
import { defaultWebDirectory, pageRoutes, readWebAssets } from './routes/pages.js';
import { FORK_RECORDED_HEADER, sessionActionRoutes } from './routes/session-actions.js';
import { recallRoutes } from './routes/recall.js';
import { sessionRoutes } from './routes/sessions.js';
import { sessionViewRoutes } from './routes/session-views.js';
import { threadRoutes } from './routes/thread.js';
import { stateRoutes } from './routes/state.js';
import { turnRoutes } from './routes/turns.js';
import { valueRoutes } from './routes/values.js';
import { userRoutes } from './routes/users.js';
import { workingMemoryRoutes } from './routes/working-memory.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { mcpRoutes, refuseOtherMcpMethods } from './routes/mcp.js';
import { securityHeaders } from './security-headers.js';

/** Options of `createServerApp`. */
export interface ServerAppOptions {
  /** The store every tenant's view looks through. The app never closes it. */
  readonly store: SessionStore;
  /** The API keys; without any, every request may use the whole store (serve on loopback only). */
  readonly keys?: KeyRing;
  /** Largest request body, in bytes. @default 8 MiB */
  readonly maxBodyBytes?: number;
  /** Signs (and can encrypt) state blobs, a subkey per tenant; without it the state routes answer 501. */
  readonly stateKey?: StateKey;
  /**
   * How often an event stream asks the store whether its session changed, when the store's change
   * feed does not hear every writer (or is not live); with a live shared feed (Postgres, Redis)
   * streams wake on it and poll only every 30 s, or this, whichever is longer. @default 1000
   */
  readonly eventPollMs?: number;
  /**
   * The agents `POST /sessions/{id}/turns` runs (`loadAgents` reads them from a config file);
   * checked when the app is made. Without any, a turn answers 501 `UNSUPPORTED`.
   */
  readonly agents?: readonly ServerAgent[];
  /** The agent of a session that has none, when a turn names none. @default the only agent, when there is one */
  readonly defaultAgentId?: string;
  /**
   * Aborting it says the server is closing: event streams end, and a new request answers 503
   * `CLOSED` (with `Retry-After`). Requests in flight, turns included, go on.
   */
  readonly signal?: AbortSignal;
  /**
   * Aborting it aborts every turn in flight (the grace period of a closing server is over): its
   * model call and tools get the abort, it stores nothing and answers 503 `ABORTED`.
   */
  readonly turnSignal?: AbortSignal;
  /** Receives one line per request (and per unexpected error). @default JSON lines on stdout */
  readonly log?: (line: LogLine) => void;
  /**
   * Signs browser-session cookies (16 characters or more); servers that share it accept each
   * other's cookies. @default a random secret of this app (cookies end when it restarts)
   */
  readonly sessionSecret?: string;
  /** Origins (`https://app.example.com`) whose pages may call the API from a browser. @default none: CORS is off */
  readonly corsOrigins?: readonly string[];
  /**
   * Origins the server's own pages are served from when not its own address: a proxy in front of
   * it (`https://chat.example.com` for one that terminates TLS). Browser-session writes from any
   * other origin are refused. @default none: only the scheme, host and port the request reached
   */
  readonly publicOrigins?: readonly string[];
  /**
   * The key `/metrics` asks for (16 characters or more, no spaces; an admin key of the ring also opens it).
   * @default none: `/metrics` answers anyone who can reach it — expose it to the scraper only
   */
  readonly metricsKey?: string;
  /** Prices of model calls by model (`checkPrices` reads them from JSON): session stats then give the cost. */
  readonly prices?: Prices;
  /** The context window token timelines are drawn against, unless a session's `metadata.contextWindow` says. @default 128000 */
  readonly contextWindow?: number;
  /**
   * The directory of the built web session browser (served at `/`), or `false` for none.
   * @default `dist/web` of the package, when it was built
   */
  readonly web?: string | false;
}

/** The context window token timelines are drawn against by default. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Response headers a cross-origin page may read. */
const EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'X-Request-Id', FORK_RECORDED_HEADER];

/** Checks origins (CORS, public): each exactly a scheme and host (and port), as browsers send `Origin`. */
function checkOrigins(origins: readonly string[], what: string): readonly string[] {
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin || origin === 'null')
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${what} ${JSON.stringify(origin)} must be a scheme and host, such as https://app.example.com (no path, no trailing slash)`,
      );
  }
  return origins;
}

/**
 * Hono's own HTTP errors (a malformed JSON body is its 400) as chatstate errors, so that they
 * answer in the one shape; anything else as it is.
 */
function fromFramework(error: unknown): unknown {
  if (isBodyStreamError(error))
    return new InvalidInputError(
      'INVALID_ARGUMENT',
      'The request body could not be read: its chunked encoding is malformed or the client reset the connection',
      { cause: error },
    );
  if (!(error instanceof HTTPException) || error.status >= 500) return error;
  const code = error.status === 413 ? 'TOO_LARGE' : error.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT';
  return new InvalidInputError(code, error.message === '' ? `HTTP ${error.status}` : error.message, { cause: error });
}

/**
 * An error of the request's own body stream, as Node raises it while a handler reads the body:
 * `aborted` (ECONNRESET) when the parser gave up on a bad chunk or the client hung up, a parser
 * error (`HPE_*`), or a stream closed early. The client's fault, not the server's: a 400 in the
 * log and the metrics (Node has already answered 400 on the socket). Store drivers wrap their own
 * connection errors in typed errors, so a raw one here is the request's.
 */
function isBodyStreamError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (code === 'ECONNRESET' && error.message === 'aborted') ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (typeof code === 'string' && code.startsWith('HPE_'))
  );
}

/** The title and version the OpenAPI document gives. */
const API_INFO = { title: 'chatstate API', version: '1' } as const;

/** Methods whose requests carry a body (and its size limit). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Routes that need a key (when the server has keys). */
const PROTECTED = [
  '/sessions',
  '/sessions/*',
  '/messages/*',
  '/values/*',
  '/state/*',
  '/recall',
  '/users/*',
  '/working-memory/*',
  '/knowledge/*',
  '/purge-expired',
  '/mcp',
] as const;

/** The API as a Hono app; `app.fetch` is its fetch handler. */
export function createServerApp(options: ServerAppOptions): OpenAPIHono<ServerEnv> {
  const agents = options.agents === undefined ? undefined : AgentSet.of(options.agents, options.defaultAgentId);
  const closing = options.signal ?? new AbortController().signal;
  const log = options.log ?? ((line: LogLine) => process.stdout.write(`${JSON.stringify(line)}\n`));
  const app = new OpenAPIHono<ServerEnv>({
    // A request the route's schema refuses: INVALID_ARGUMENT naming the first problem.
    defaultHook: (result) => {
      if (result.success) return undefined;
      const issue = result.error.issues[0];
      const where = issue === undefined ? result.target : `${result.target} ${issue.path.join('.') || '(root)'}`;
      throw new InvalidInputError('INVALID_ARGUMENT', `${where}: ${issue?.message ?? 'invalid'}`, {
        details: { target: result.target, issues: result.error.issues.slice(0, 10) },
      });
    },
  });
  const metrics = new ServerMetrics();
  const signer = new SessionSigner(options.sessionSecret);
  const corsOrigins = checkOrigins(options.corsOrigins ?? [], 'CORS origin');
  const publicOrigins = new Set(checkOrigins(options.publicOrigins ?? [], 'Public origin'));
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (!Number.isSafeInteger(contextWindow) || contextWindow < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', `contextWindow must be a positive integer of tokens`);
  const prices = options.prices === undefined ? undefined : checkPrices(options.prices);
  // Sent as `Authorization: Bearer KEY`, so no whitespace.
  if (options.metricsKey !== undefined && !/^\S{16,}$/.test(options.metricsKey))
    throw new InvalidInputError('INVALID_ARGUMENT', 'metricsKey must be 16 characters or more, without spaces');
  app.use('*', requestLog(log));
  app.use('*', metrics.middleware());
  app.use('*', securityHeaders());
  // Off unless configured: without CORS headers a browser lets no other site's page read an answer.
  if (corsOrigins.length > 0)
    app.use(
      '*',
      cors({
        origin: [...corsOrigins],
        allowHeaders: ['Authorization', 'X-Api-Key', 'Content-Type', 'If-Match', 'Last-Event-ID', 'X-Request-Id'],
        exposeHeaders: EXPOSED_HEADERS,
        maxAge: 600,
      }),
    );
  // A request that arrives while the server closes (on a connection still open) is told to come back.
  app.use('*', async (_c, next) => {
    if (closing.aborted)
      throw new ClosedError('The server is closing: retry after Retry-After, on another instance', {
        details: { server: 'closing' },
      });
    return next();
  });
  const maxSize = options.maxBodyBytes ?? 8 << 20;
  const tooLarge = (): InvalidInputError =>
    new InvalidInputError('TOO_LARGE', `The request body is larger than ${maxSize} bytes`, {
      details: { maxBytes: maxSize },
    });
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge();
    },
  });
  app.use('*', (c, next) => {
    // Only methods with a body: reading a GET's body would build a request stream for nothing.
    if (!BODY_METHODS.has(c.req.method)) return next();
    // A declared length is checked without touching the body (Node's parser never reads past it):
    // `raw.body` would make @hono/node-server build a whole web Request for every append.
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limit(c, next);
    if (Number(length) > maxSize) throw tooLarge();
    return next();
  });
  // One middleware for every path, so one view per key: what a view keeps in process (recall's
  // partitions, computed stats) is the one a forget through that key's view drops.
  const auth = authenticate(options.store, options.keys, signer, publicOrigins);
  for (const path of PROTECTED) app.use(path, auth);
  const hub = new ChangeHub();
  const feed = followChanges(hub, options.store.changes, closing, log);
  app.use('*', async (c, next) => {
    c.set('changed', (sessionId) => hub.notify(ChangeHub.key(c.var.principal?.tenant, sessionId)));
    return next();
  });
  const webDirectory = options.web === false ? undefined : (options.web ?? defaultWebDirectory());
  pageRoutes(app, webDirectory === undefined ? undefined : readWebAssets(webDirectory));
  healthRoutes(app, options.store, log);
  authRoutes(app, options.keys, signer);
  sessionRoutes(app);
  messageRoutes(app);
  messagesAtRoutes(app);
  sessionActionRoutes(app);
  eventRoutes(app, { hub, feed, pollMs: options.eventPollMs ?? 1000, closing });
  turnRoutes(app, { agents, abort: options.turnSignal ?? new AbortController().signal });
  sessionViewRoutes(app, { contextWindow, ...(prices === undefined ? {} : { prices }) });
  threadRoutes(app);
  valueRoutes(app);
  userRoutes(app);
  stateRoutes(app, options.stateKey);
  recallRoutes(app);
  workingMemoryRoutes(app);
  knowledgeRoutes(app);
  app.use('/mcp', refuseOtherMcpMethods());
  mcpRoutes(app, maxSize);
  app.doc31('/openapi.json', { openapi: '3.1.0', info: API_INFO });
  // Operational only (no tenant labels): expose it to the scraper, not to the internet, or set a key.
  if (options.metricsKey !== undefined) app.use('/metrics', requireMetricsKey(options.metricsKey, options.keys));
  app.openapi(
    createRoute({
      method: 'get',
      path: '/metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics: requests, latency, store errors',
      description: 'Needs the metrics key or an admin key when the server has a metrics key.',
      responses: {
        200: { description: 'The exposition text', content: { 'text/plain': { schema: z.string() } } },
        ...errors(401),
      },
    }),
    async (c) => {
      const { text, contentType } = await metrics.exposition();
      return c.text(text, 200, { 'Content-Type': contentType });
    },
  );
  app.notFound((c) => {
    throw new NotFoundError(`No route ${c.req.method} ${new URL(c.req.url).pathname}`);
  });
  app.onError((error, c) => {
    metrics.storeError(error);
    const answer = errorAnswer(fromFramework(error));
    const status = (error as { status?: unknown }).status === 412 ? 412 : answer.status;
    if (answer.body.code === 'INTERNAL')
      log({ level: 'error', requestId: c.var.requestId, message: errorMessage(error), stack: (error as Error).stack });
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    return c.json(answer.body, status as 400);
  });
  return app;
}
