/**
 * `httpStore(url)`: a `SessionStore` on a chatstate server (`chatstate serve`), reached over its
 * HTTP API — `openStore('http://127.0.0.1:3000')` and `https://…` URLs open it. See
 * `http-store.ts` for why it is a whole store rather than a driver, and `docs/stores.md`.
 * @module
 */
import { MAX_TTL_MS } from '../../bounds.js';
import { InvalidInputError } from '../../errors.js';
import type { SessionStoreOptions } from '../../store/session-store.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { HttpClient } from './client.js';
import { HttpSessionStore } from './http-store.js';

/** The environment variable the API key is read from when `apiKey` is not given. */
export const API_KEY_ENV = 'CHATSTATE_API_KEY';

/** Deadline of one request when `timeoutMs` is not given. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Options of `httpStore`. Of the core store options only `defaultTtlMs` applies: the server's
 * store encrypts, counts tokens and keeps time, so `encryption`, `userKeys`, `counter` and `now` are refused
 * (`INVALID_ARGUMENT`) rather than silently ignored.
 */
export interface HttpStoreOptions extends SessionStoreOptions {
  /**
   * The server's API key, sent as `Authorization: Bearer`. Never put it in the URL: URLs end up
   * in logs. @default the `CHATSTATE_API_KEY` environment variable; none when it is unset (a
   * server without keys, on loopback)
   */
  readonly apiKey?: string;
  /** Name of the store in its errors and `store.name`. @default the URL (scheme, host, port and path) */
  readonly name?: string;
  /** Deadline of each request, in milliseconds; one without an answer by then is `UNAVAILABLE`. @default 30000 */
  readonly timeoutMs?: number;
}

/** The server's base URL (no query, fragment or credentials; no trailing slash), or `INVALID_ARGUMENT`. */
function baseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `httpStore needs an http: or https: URL, not ${JSON.stringify(url.slice(0, 200))}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `httpStore needs an http: or https: URL, not a ${parsed.protocol} one`,
    );
  // The URL is shown in errors and logs: a key in it (a query, a password) would leak there.
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '')
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `httpStore: the URL must hold no credentials, query or fragment (keys in URLs leak into logs): give the key as the apiKey option or in ${API_KEY_ENV}`,
    );
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/**
 * ✱ A store on the chatstate server at `url` (`http://127.0.0.1:3000`, or with the base path a
 * proxy serves it under), with the key of `options.apiKey` or `CHATSTATE_API_KEY`. Opening sends
 * no request: a server that cannot be reached fails the first call with `UNAVAILABLE`.
 */
export function httpStore(url: string, options: HttpStoreOptions = {}): SessionStore {
  if (typeof url !== 'string') throw new InvalidInputError('INVALID_ARGUMENT', 'httpStore needs a URL string');
  const base = baseUrl(url);
  for (const refused of ['encryption', 'userKeys', 'counter', 'now'] as const)
    if (options[refused] !== undefined)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `httpStore: ${refused} is an option of the server's store (chatstate serve), not of a remote one`,
      );
  const apiKey = options.apiKey ?? (process.env[API_KEY_ENV] || undefined);
  if (apiKey !== undefined && (typeof apiKey !== 'string' || !/^\S+$/.test(apiKey)))
    throw new InvalidInputError('INVALID_ARGUMENT', 'httpStore: apiKey must be a non-empty string without spaces');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', 'httpStore: timeoutMs must be a positive integer of milliseconds');
  const ttl = options.defaultTtlMs;
  if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_TTL_MS))
    throw new InvalidInputError('INVALID_ARGUMENT', `defaultTtlMs must be a positive integer of at most ${MAX_TTL_MS}`);
  const name = options.name ?? base;
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', 'httpStore: name must be a non-empty string');
  const client = new HttpClient({ store: name, base, timeoutMs, ...(apiKey === undefined ? {} : { apiKey }) });
  return new HttpSessionStore(client, {
    name,
    ...(options.defaultTtlMs === undefined ? {} : { defaultTtlMs: options.defaultTtlMs }),
  });
}
