/**
 * Browser sessions: `POST /auth/session` trades a key for an HttpOnly, SameSite=Strict cookie,
 * `GET /auth/session` says who the request is (a page asks before showing its login form), and
 * `DELETE /auth/session` ends the browser session. No key is needed to reach them.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { UnauthorizedError } from '../../errors.js';
import type { KeyRing, Principal } from '../auth/api-keys.js';
import { principalOfRequest, presentedKey } from '../auth/authenticate.js';
import {
  DEFAULT_SESSION_SECONDS,
  MAX_SESSION_SECONDS,
  SESSION_COOKIE,
  type SessionSigner,
} from '../auth/browser-session.js';
import type { ServerEnv } from '../env.js';
import { isLoopback } from '../loopback.js';
import { type principalSchema, whoSchema } from '../schemas.js';
import { errors, json, jsonBody } from './common.js';

const loginSchema = z
  .strictObject({
    key: z.string().min(1).max(512).optional().openapi({ description: 'The API key (or send it as Authorization)' }),
    ttlSeconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_SESSION_SECONDS)
      .optional()
      .openapi({
        description: `How long the browser session lasts (default ${DEFAULT_SESSION_SECONDS})`,
      }),
  })
  .openapi('Login');

const who = createRoute({
  method: 'get',
  path: '/auth/session',
  tags: ['auth'],
  summary: 'Who this request is: by its key or its browser session (never 401)',
  responses: { 200: json(whoSchema, 'The principal, or null') },
});

const login = createRoute({
  method: 'post',
  path: '/auth/session',
  tags: ['auth'],
  summary: 'Open a browser session: an HttpOnly, SameSite=Strict cookie for the key',
  request: { body: jsonBody(loginSchema) },
  responses: {
    200: json(whoSchema, 'The session is open: Set-Cookie carries it'),
    ...errors(400, 401, 413),
  },
});

const logout = createRoute({
  method: 'delete',
  path: '/auth/session',
  tags: ['auth'],
  summary: 'End the browser session (clears the cookie)',
  responses: { 204: { description: 'The cookie is cleared' } },
});

function outward(principal: Principal): z.infer<typeof principalSchema> {
  return {
    tenant: principal.tenant,
    role: principal.role,
    keyId: principal.keyId,
    ...(principal.userId === undefined ? {} : { userId: principal.userId }),
  };
}

/** Secure unless served over plain HTTP on loopback (a browser sends a Secure cookie only over HTTPS). */
function secureFor(c: Context): boolean {
  const url = new URL(c.req.url);
  return !(url.protocol === 'http:' && isLoopback(url.hostname));
}

/** Registers the browser-session routes. */
export function authRoutes(app: OpenAPIHono<ServerEnv>, keys: KeyRing | undefined, signer: SessionSigner): void {
  const keysRequired = keys !== undefined && keys.size > 0;

  app.openapi(who, (c) => {
    if (!keysRequired) return c.json({ keysRequired, principal: null }, 200);
    let found;
    try {
      found = principalOfRequest(c, keys, signer);
    } catch {
      // An unknown key here is simply nobody: this route answers who, it guards nothing.
      found = undefined;
    }
    if (found === undefined) return c.json({ keysRequired, principal: null }, 200);
    return c.json(
      {
        keysRequired,
        principal: outward(found.principal),
        via: found.via,
        ...(found.expiresAt === undefined ? {} : { expiresAt: new Date(found.expiresAt * 1000).toISOString() }),
      },
      200,
    );
  });

  app.openapi(login, (c) => {
    const body = c.req.valid('json');
    if (!keysRequired) return c.json({ keysRequired, principal: null }, 200);
    const secret = body.key ?? presentedKey(c);
    if (secret === undefined) throw new UnauthorizedError('Give the API key as "key", or as Authorization: Bearer KEY');
    const principal = keys.principalOf(secret);
    const hash = principal === undefined ? undefined : keys.hashOf(principal.keyId);
    if (principal === undefined || hash === undefined) throw new UnauthorizedError('Unknown API key');
    const ttl = body.ttlSeconds ?? DEFAULT_SESSION_SECONDS;
    const expiresAt = Math.floor(Date.now() / 1000) + ttl;
    setCookie(c, SESSION_COOKIE, signer.sign(principal.keyId, hash, expiresAt), {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: ttl,
      secure: secureFor(c),
    });
    return c.json(
      {
        keysRequired,
        principal: outward(principal),
        via: 'cookie' as const,
        expiresAt: new Date(expiresAt * 1000).toISOString(),
      },
      200,
    );
  });

  app.openapi(logout, (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Strict', secure: secureFor(c) });
    return c.body(null, 204);
  });
}
