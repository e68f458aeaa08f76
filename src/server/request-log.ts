/**
 * A request id for every request (the caller's `X-Request-Id` when it is a sane one) and one
 * structured JSON log line per request.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './env.js';

/** One log line. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly requestId?: string;
  readonly message?: string;
  readonly [field: string]: unknown;
}

// A caller's id is echoed into logs and headers: only short, plain ones are kept.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Middleware that sets `requestId`, answers it in `X-Request-Id`, and logs the request when it ends. */
export function requestLog(log: (line: LogLine) => void): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    // Set before the response exists: a header added to a finished response would copy it.
    c.header('X-Request-Id', requestId);
    const start = performance.now();
    try {
      await next();
    } finally {
      const principal = c.var.principal;
      log({
        level: c.res.status >= 500 ? 'error' : 'info',
        time: new Date().toISOString(),
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - start) * 100) / 100,
        ...(principal === undefined ? {} : { tenant: principal.tenant, keyId: principal.keyId }),
      });
    }
  };
}
