/**
 * Headers every answer carries, and the policy served pages get. API answers are data, never
 * documents: their Content-Security-Policy forbids everything, so a session's text that a browser
 * were tricked into rendering as a page could run nothing. Pages (the web session browser) get
 * `PAGE_CSP`: scripts and styles from this server only, no inline code, no framing.
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './env.js';

/** The Content-Security-Policy of API answers: nothing may load or run. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The Content-Security-Policy of served pages: this server's scripts, styles and API only. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', API_CSP],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];

/**
 * Middleware that sets the headers before the answer exists (a page route replaces the CSP with
 * `PAGE_CSP`): headers added to a finished answer would make the Node adapter copy it.
 */
export function securityHeaders(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    for (const [name, value] of HEADERS) c.header(name, value);
    await next();
  };
}
