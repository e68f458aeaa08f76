/**
 * The one place a request becomes a principal and a store: its key (`Authorization: Bearer KEY`
 * or `X-Api-Key: KEY`) is looked up in the key ring, and the request gets its tenant's view of the
 * store (its user's, for a key bound to one). Without keys configured, the server serves the whole
 * store to anyone who can reach it, which is why it then listens on loopback only.
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError } from '../../errors.js';
import type { SessionStore } from '../../store/types.js';
import { tenantStore } from '../../tenancy/tenant-store.js';
import type { ServerEnv } from '../env.js';
import type { KeyRing, Principal } from './api-keys.js';

/** The key a request presents, if any. */
function presentedKey(authorization: string | undefined, apiKey: string | undefined): string | undefined {
  if (apiKey !== undefined && apiKey !== '') return apiKey;
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/** Middleware that sets `principal` and `store`, or answers 401. */
export function authenticate(store: SessionStore, keys: KeyRing | undefined): MiddlewareHandler<ServerEnv> {
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
    const secret = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
    if (secret === undefined)
      throw new UnauthorizedError('This server needs an API key: Authorization: Bearer KEY, or X-Api-Key: KEY');
    const principal = keys.principalOf(secret);
    if (principal === undefined) throw new UnauthorizedError('Unknown API key');
    c.set('principal', principal);
    c.set('store', viewOf(principal));
    return next();
  };
}
