/**
 * `/healthz` (the process answers) and `/readyz` (the store answers a read in time, reading no session:
 * a keyless answer must name nothing stored, and no damaged session may make the server unready).
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { UnavailableError, errorMessage } from '../../errors.js';
import type { SessionStore } from '../../store/session-store-types.js';
import type { ServerEnv } from '../env.js';
import type { LogLine } from '../request-log.js';
import { errors, json } from './common.js';

/** How long `/readyz` waits for the store. */
const READY_TIMEOUT_MS = 2_000;

const status = z.object({ status: z.literal('ok') }).openapi('Status');

/** Registers the health routes (no key needed: they reveal nothing but liveness). */
export function healthRoutes(app: OpenAPIHono<ServerEnv>, store: SessionStore, log: (line: LogLine) => void): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      tags: ['operations'],
      summary: 'The process is up',
      responses: { 200: json(status, 'Up') },
    }),
    (c) => c.json({ status: 'ok' as const }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/readyz',
      tags: ['operations'],
      summary: 'The store answers',
      responses: { 200: json(status, 'Ready'), ...errors(503) },
    }),
    async (c) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          store.ping(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer in ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
          }),
        ]);
      } catch (error) {
        // Why goes to the log: the answer is keyless, so it says nothing the store said.
        log({ level: 'warn', requestId: c.var.requestId, message: `not ready: ${errorMessage(error)}` });
        throw new UnavailableError(`${store.name} is not ready`, { store: store.name, reason: 'NOT_READY' });
      } finally {
        clearTimeout(timer);
      }
      return c.json({ status: 'ok' as const }, 200);
    },
  );
}
