/**
 * Read-only views of one session for the web session browser (and any client): its list row
 * without its messages (`summary`), its statistics with usage, cost and continuation chain
 * (`stats`), and its token timeline (`timeline`). Computed by the library (`Session.stats`,
 * `usageTotals`, `tokenTimeline`) over the request's store view, and bounded in size however long
 * the session is.
 * @module
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFoundError } from '../../errors.js';
import { isValidId } from '../../ids.js';
import { walkChain } from '../../manager/chain.js';
import { compactionLog } from '../../session/compaction-log.js';
import type { Session } from '../../session/session.js';
import { tokenTimeline } from '../../session/timeline.js';
import { cachedShare, costOf, usageTotals, type Prices } from '../../session/usage-totals.js';
import type { SessionStore, SessionSummary } from '../../store/session-store-types.js';
import type { ServerEnv } from '../env.js';
import { etagOf } from '../etag.js';
import { VIEW_COUNTER } from '../message-tokens.js';
import { sessionIdParam, summarySchema } from '../schemas.js';
import { ViewCache } from '../view-cache.js';
import { sessionStatsSchema, timelineQuerySchema, timelineSchema } from '../view-schemas.js';
import { errors, json, sent } from './common.js';

/** Options of the view routes. */
export interface SessionViewOptions {
  /** Prices of model calls: the stats then give the cost. */
  readonly prices?: Prices;
  /** The context window the timeline is drawn against, unless the session's `metadata.contextWindow` names one. */
  readonly contextWindow?: number;
}

/** Links of a continuation chain followed at most in each direction. */
const MAX_CHAIN = 1000;

const summary = createRoute({
  method: 'get',
  path: '/sessions/{id}/summary',
  tags: ['sessions'],
  summary:
    'The session’s list row (owner, title, counts, version, links) without its messages; forkedFrom.missing when the source is gone',
  request: { params: sessionIdParam },
  responses: { 200: json(summarySchema, 'The row; its ETag is the version'), ...errors(400, 401, 404, 503) },
});

const stats = createRoute({
  method: 'get',
  path: '/sessions/{id}/stats',
  tags: ['sessions'],
  summary: 'Statistics: messages, tokens by category, tool calls by name, usage, cost, continuation chain',
  request: { params: sessionIdParam },
  responses: { 200: json(sessionStatsSchema, 'The statistics'), ...errors(400, 401, 404, 503) },
});

const timeline = createRoute({
  method: 'get',
  path: '/sessions/{id}/timeline',
  tags: ['sessions'],
  summary: 'Tokens by category turn by turn, compactions, tool-heavy turns, and the sequence numbers as runs',
  request: { params: sessionIdParam, query: timelineQuerySchema },
  responses: {
    200: json(timelineSchema, 'The timeline (downsampled past `points` turns)'),
    ...errors(400, 401, 404, 503),
  },
});

/**
 * The continuation chain through `start`, root first, followed by the links of list rows (no
 * session is read whole); a link to a session that is gone (or not the caller's) is `missing`.
 * Links that loop or are not ids are `CORRUPT` (a 500: the store holds damaged data).
 */
async function chainOf(
  store: SessionStore,
  start: SessionSummary,
): Promise<{ ids: string[]; position: number; missing: readonly string[] }> {
  const read = (id: string): Promise<SessionSummary | undefined> => store.summary(id);
  const { before, after, missing } = await walkChain(start, read, (row) => row, { maxLinks: MAX_CHAIN });
  return { ids: [...before, start, ...after].map((row) => row.id), position: before.length, missing };
}

/**
 * The row's `forkedFrom`, with `missing: true` when the source is gone (deleted, or not the
 * caller's): a client then shows it as gone instead of linking to a 404. Read each time: deleting
 * the source does not change this session's version.
 */
async function forkedFromOf(
  store: SessionStore,
  row: SessionSummary,
): Promise<{ forkedFrom?: NonNullable<SessionSummary['forkedFrom']> & { missing?: true } }> {
  const from = row.forkedFrom;
  if (from === undefined) return {};
  const present = isValidId(from.sessionId) && (await store.summary(from.sessionId)) !== undefined;
  return { forkedFrom: present ? from : { ...from, missing: true } };
}

/** A session's context window: its own `metadata.contextWindow`, else the server's. */
function contextWindowOf(session: Session, fallback: number | undefined): number | undefined {
  const own = session.metadata.contextWindow;
  return typeof own === 'number' && Number.isSafeInteger(own) && own > 0 ? own : fallback;
}

/** Registers the view routes. */
export function sessionViewRoutes(app: OpenAPIHono<ServerEnv>, options: SessionViewOptions = {}): void {
  const cache = new ViewCache();

  app.openapi(summary, async (c) => {
    const { id } = c.req.valid('param');
    const row = await c.var.store.summary(id);
    if (row === undefined) throw new NotFoundError(`No session ${id}`);
    c.header('ETag', etagOf(row.version));
    return c.json(sent(summarySchema, { ...row, ...(await forkedFromOf(c.var.store, row)) }), 200);
  });

  app.openapi(stats, async (c) => {
    const { id } = c.req.valid('param');
    const store = c.var.store;
    const computed = await cache.view(store, id, 'stats', (session) => {
      const usage = usageTotals(session.history);
      const share = cachedShare(usage);
      return {
        id: session.id,
        version: session.version,
        stats: session.stats(VIEW_COUNTER),
        usage: share === undefined ? usage : { ...usage, cachedShare: share },
        ...(session.lastUsage === undefined ? {} : { lastUsage: { ...session.lastUsage } }),
        ...(options.prices === undefined ? {} : { cost: costOf(usage, options.prices) }),
        compactions: compactionLog(session.metadata).length,
      };
    });
    // The chain is read each time: a successor made since the session last changed belongs to it.
    const row = await store.summary(id);
    if (row === undefined) throw new NotFoundError(`No session ${id}`);
    c.header('ETag', etagOf(computed.version));
    const body = { ...computed, chain: await chainOf(store, row), ...(await forkedFromOf(store, row)) };
    return c.json(sent(sessionStatsSchema, body), 200);
  });

  app.openapi(timeline, async (c) => {
    const { id } = c.req.valid('param');
    const { points } = c.req.valid('query');
    const computed = await cache.view(c.var.store, id, `timeline ${points ?? ''}`, (session) => {
      const contextWindow = contextWindowOf(session, options.contextWindow);
      return {
        id: session.id,
        version: session.version,
        ...(contextWindow === undefined ? {} : { contextWindow }),
        ...tokenTimeline(session.history, session.metadata, {
          counter: VIEW_COUNTER,
          ...(points === undefined ? {} : { maxPoints: points }),
        }),
      };
    });
    c.header('ETag', etagOf(computed.version));
    return c.json(sent(timelineSchema, computed), 200);
  });
}
