/**
 * What every request carries through the server's middleware: who it is, the store it may use
 * (a tenant's view), and its request id.
 * @module
 */
import type { SessionStore } from '../store/session-store-types.js';
import type { Principal } from './auth/api-keys.js';

/** The Hono environment of the server's routes. */
export interface ServerEnv {
  Variables: {
    /** The caller; `undefined` when the server runs without keys (loopback only, the whole store). */
    principal: Principal | undefined;
    /** The store this request reads and writes: the caller's tenant (or user) view. */
    store: SessionStore;
    requestId: string;
    /** Tells the session's event streams (on this server) that the request changed it. */
    changed: (sessionId: string) => void;
  };
}
