/**
 * `GET /sessions/{id}/events`: a server-sent events stream of a session's changes. Each change is
 * one `change` event whose id is the session's version: the messages added since the last event
 * (with each one's tokens, as `GET /sessions/{id}/messages` gives them), or `replaced: true` when
 * the history changed otherwise (a compaction), so the client reads it again. `Last-Event-ID` (a version) resumes; a deleted session ends the stream with `deleted`.
 * A stream wakes on the store's change feed (other servers' writes too, on Postgres and Redis)
 * and polls the store only as a fallback (see `pollInterval`).
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { NotFoundError } from '../../errors.js';
import type { ChangeFeed } from '../../store/change-types.js';
import { ChangeHub } from '../change-hub.js';
import type { ServerEnv } from '../env.js';
import { messageTokens } from '../message-tokens.js';
import { sessionIdParam } from '../schemas.js';
import { errors } from './common.js';

/** Options of the event streams. */
export interface EventStreamOptions {
  readonly hub: ChangeHub;
  /** The store's change feed, which wakes the hub; `undefined` when the store has none. */
  readonly feed: ChangeFeed | undefined;
  /**
   * How often a stream asks the store for the session's version when the feed does not hear every
   * writer (no feed, a feed of this store's writes only, or one that is not live).
   */
  readonly pollMs: number;
  /** Aborted when the server closes: every stream ends. */
  readonly closing: AbortSignal;
}

/** Messages sent in one event at most (a larger change is sent as `replaced`). */
const MAX_EVENT_MESSAGES = 500;

/**
 * The safety poll of a stream whose feed hears every writer and is live: a change the feed missed
 * unannounced (a writer that died between its write and its publish) is still told within it.
 */
export const SAFETY_POLL_MS = 30_000;

/** How long a stream waits for a change before it asks the store anyway. */
function pollInterval(options: EventStreamOptions): number {
  const feed = options.feed;
  return feed !== undefined && feed.coverage === 'all' && feed.state === 'live'
    ? Math.max(options.pollMs, SAFETY_POLL_MS)
    : options.pollMs;
}

const route = createRoute({
  method: 'get',
  path: '/sessions/{id}/events',
  tags: ['sessions'],
  summary: 'Server-sent events of the session’s changes (id: the version; resume with Last-Event-ID)',
  request: { params: sessionIdParam },
  responses: {
    200: {
      description:
        'An event stream: ready, change (messages added with their counter and tokenCounts, or replaced), deleted',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    ...errors(400, 401, 404, 503),
  },
});

/** Registers the event stream. */
export function eventRoutes(app: OpenAPIHono<ServerEnv>, options: EventStreamOptions): void {
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    const store = c.var.store;
    // Watching before the first read: a change made in between wakes the stream's first wait.
    const watch = options.hub.watch(ChangeHub.key(c.var.principal?.tenant, id));
    let first: Awaited<ReturnType<typeof store.summary>>;
    try {
      first = await store.summary(id);
      if (first === undefined) throw new NotFoundError(`No session ${id}`);
    } catch (error) {
      watch.close();
      throw error;
    }
    const resume = Number(c.req.header('last-event-id'));
    return streamSSE(c, async (stream) => {
      const ended = new AbortController();
      stream.onAbort(() => ended.abort());
      const stop = (): void => ended.abort();
      options.closing.addEventListener('abort', stop);
      try {
        // What the client has been told: a version, the highest seq, and the message count then.
        let version = first.version;
        let count = first.messageCount;
        let lastSeq = (await store.readMessages(id, { limit: 1 })).at(-1)?.seq ?? 0;
        await stream.writeSSE({ event: 'ready', id: String(version), data: JSON.stringify({ version }) });
        // A client resuming from an older version missed changes this stream cannot list: it reads again.
        if (Number.isSafeInteger(resume) && resume >= 0 && resume < version)
          await stream.writeSSE({
            event: 'change',
            id: String(version),
            data: JSON.stringify({ version, replaced: true }),
          });
        while (!ended.signal.aborted) {
          await watch.wait(pollInterval(options), ended.signal);
          if (ended.signal.aborted) return;
          const now = await store.summary(id);
          if (now === undefined) {
            await stream.writeSSE({ event: 'deleted', data: JSON.stringify({ id }) });
            return;
          }
          if (now.version === version) continue;
          const added = await store.readMessages(id, { afterSeq: lastSeq, limit: MAX_EVENT_MESSAGES + 1 });
          // Only appends grow the count by exactly what was added after the last seq told.
          const appended = added.length <= MAX_EVENT_MESSAGES && now.messageCount === count + added.length;
          lastSeq = appended
            ? (added.at(-1)?.seq ?? lastSeq)
            : ((await store.readMessages(id, { limit: 1 })).at(-1)?.seq ?? 0);
          version = now.version;
          count = now.messageCount;
          await stream.writeSSE({
            event: 'change',
            id: String(version),
            data: JSON.stringify(
              appended ? { version, messages: added, ...messageTokens(added) } : { version, replaced: true },
            ),
          });
        }
      } finally {
        watch.close();
        options.closing.removeEventListener('abort', stop);
      }
    });
  });
}
