/**
 * The one place a request becomes a principal and a store: its key (`Authorization: Bearer KEY`
 * or `X-Api-Key: KEY`) — or, for a browser, the session cookie a key opened — is looked up in the
 * key ring, and the request gets its tenant's view of the store (its user's, for a key bound to
 * one). Without keys configured, the server serves the whole store to anyone who can reach it,
 * which is why it then listens on loopback only.
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { ForbiddenError, UnauthorizedError } from '../../errors.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { tenantStore } from '../../tenancy/tenant-store.js';
import type { ServerEnv } from '../env.js';
import type { KeyRing, Principal } from './api-keys.js';
import { SESSION_COOKIE, type SessionSigner } from './browser-session.js';

/** Methods that change nothing: a cookie may carry them from anywhere the browser allows. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The key a request presents, if any. */
export function presentedKey(c: Context): string | undefined {
  const apiKey = c.req.header('x-api-key');
  if (apiKey !== undefined && apiKey !== '') return apiKey;
  const authorization = c.req.header('authorization');
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/** How a request proved who it is. */
export interface Authenticated {
  readonly principal: Principal;
  readonly via: 'key' | 'cookie';
  /** For a cookie: when its browser session ends (seconds since the epoch). */
  readonly expiresAt?: number;
}

/**
 * The request's principal: by its key (`UNAUTHORIZED` for a key the ring does not hold), else by
 * its session cookie (a cookie that no longer holds — expired, forged, its key removed — counts as
 * none); `undefined` when it shows neither.
 */
export function principalOfRequest(c: Context, keys: KeyRing, signer: SessionSigner): Authenticated | undefined {
  const secret = presentedKey(c);
  if (secret !== undefined) {
    const principal = keys.principalOf(secret);
    if (principal === undefined) throw new UnauthorizedError('Unknown API key');
    return { principal, via: 'key' };
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  if (cookie === undefined) return undefined;
  const token = signer.verify(cookie, (keyId) => keys.hashOf(keyId), Math.floor(Date.now() / 1000));
  if (token === undefined) return undefined;
  const principal = keys.principalById(token.keyId);
  return principal === undefined ? undefined : { principal, via: 'cookie', expiresAt: token.expiresAt };
}

/**
 * Refuses a cookie-borne request that changes something when it did not come from the server's
 * own pages (cross-site request forgery): SameSite=Strict already keeps the cookie off cross-site
 * requests; this also covers browsers and subdomains that SameSite does not. `Origin` must equal
 * the server's own origin — scheme, host and port, as the request reached it — or one of
 * `publicOrigins` (the origins of a proxy in front of it, e.g. one that terminates TLS).
 */
function checkSameOrigin(c: Context, publicOrigins: ReadonlySet<string>): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const site = c.req.header('sec-fetch-site');
  const origin = c.req.header('origin');
  const sameOrigin = origin === undefined || origin === new URL(c.req.url).origin || publicOrigins.has(origin);
  if ((site !== undefined && site !== 'same-origin' && site !== 'none') || !sameOrigin)
    throw new ForbiddenError('A browser session may change data only from this server’s own pages');
}

/** Middleware that sets `principal` and `store`, or answers 401. */
export function authenticate(
  store: SessionStore,
  keys: KeyRing | undefined,
  signer: SessionSigner,
  publicOrigins: ReadonlySet<string> = new Set(),
): MiddlewareHandler<ServerEnv> {
  // One view per key, kept: what a view keeps in process (recall's index) lasts across requests.
  const views = new Map<string, SessionStore>();
  const viewOf = (principal: Principal): SessionStore => {
    let view = views.get(principal.keyId);
    if (view === undefined) {
      view = tenantStore(store, {
        tenant: principal.tenant,
        ...(principal.userId === undefined ? {} : { userId: principal.userId }),
      });
      views.set(principal.keyId, view);
    }
    return view;
  };
  return async (c, next) => {
    if (keys === undefined || keys.size === 0) {
      c.set('principal', undefined);
      c.set('store', store);
      return next();
    }
    const found = principalOfRequest(c, keys, signer);
    if (found === undefined)
      throw new UnauthorizedError(
        'This server needs an API key: Authorization: Bearer KEY, or X-Api-Key: KEY (or a browser session: POST /auth/session)',
      );
    if (found.via === 'cookie') checkSameOrigin(c, publicOrigins);
    c.set('principal', found.principal);
    c.set('store', viewOf(found.principal));
    return next();
  };
}

/** True when `presented` is `expected` (compared in constant time: a key must not leak by timing). */
function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Middleware that lets a request through only with the metrics key or an admin key of the ring
 * (by `Authorization: Bearer` or `X-Api-Key`): what `/metrics` needs once a metrics key is set.
 */
export function requireMetricsKey(metricsKey: string, keys: KeyRing | undefined): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const secret = presentedKey(c);
    if (secret === undefined) throw new UnauthorizedError('/metrics needs the metrics key or an admin key');
    if (!sameSecret(secret, metricsKey) && keys?.principalOf(secret)?.role !== 'admin')
      throw new UnauthorizedError('/metrics needs the metrics key or an admin key');
    return next();
  };
}
