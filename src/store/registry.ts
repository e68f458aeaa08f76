/**
 * The registry of store URL schemes: `registerStore(scheme, loader)` and the lookup that opens a
 * store from its URL. Built-in and third-party stores join it the same way (chatstate's own are
 * registered by `chatstate/stores`), and a loader usually imports its store's module only when it
 * is called, so registering a scheme loads no driver. It lives with the store contract, below the
 * drivers, so that the conformance kit can open any registered store without importing one.
 * @module
 */
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../errors.js';
import { createSessionStore, type SessionStoreOptions } from './session-store.js';
import type { AnyStoreDriver } from './driver-types.js';
import type { SessionStore } from './session-store-types.js';

/** Options every loader receives: the core store options (`encryption`, `counter`, `defaultTtlMs`, `now`). */
export type OpenStoreOptions = SessionStoreOptions;

/**
 * Opens the store a URL of its scheme names (the URL is given whole, scheme included). It returns
 * the store, or a driver the registry turns into one with `createSessionStore(driver, options)`.
 */
export type StoreLoader = (url: string, options: OpenStoreOptions) => Promise<SessionStore | AnyStoreDriver>;

/** Options of `registerStore`. */
export interface RegisterStoreOptions {
  /** Replace a loader already registered for the scheme (a built-in one too). @default false */
  readonly replace?: boolean;
}

// A scheme as RFC 3986 spells it, of two characters at least: a one-letter scheme reads as a
// Windows drive (`C:\sessions`).
const SCHEME = /^[a-z][a-z0-9+.-]+$/;

// One registry per process, shared by every installed copy of chatstate (found by a Symbol.for
// key, as errors are): a store package that depends on its own copy registers where the
// application's `openStore` looks.
const REGISTRY = Symbol.for('chatstate.store-registry');
const holder = globalThis as typeof globalThis & { [REGISTRY]?: Map<string, StoreLoader> };
const loaders: Map<string, StoreLoader> = (holder[REGISTRY] ??= new Map());

/** `scheme` as the registry keys it (lowercase, with its colon); `INVALID_ARGUMENT` when it is not a scheme. */
function schemeKey(scheme: unknown): string {
  const bare = typeof scheme === 'string' ? scheme.toLowerCase().replace(/:$/, '') : '';
  if (!SCHEME.test(bare)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `registerStore: ${JSON.stringify(String(scheme).slice(0, 40))} is not a URL scheme (a letter, then letters, digits, "+", "-" or "."; at least two characters)`,
    );
  }
  return `${bare}:`;
}

/**
 * Registers `loader` for URLs of `scheme` (`'jsonl'` or `'jsonl:'`), so that `openStore` and the
 * conformance kit's child processes open them. Registering the same loader again does nothing;
 * another loader for a taken scheme is `INVALID_ARGUMENT` unless `options.replace` is set.
 */
export function registerStore(scheme: string, loader: StoreLoader, options: RegisterStoreOptions = {}): void {
  const key = schemeKey(scheme);
  if (typeof loader !== 'function')
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `registerStore: the loader of ${key} must be an async function (url, options) => store or driver`,
    );
  const known = loaders.get(key);
  if (known !== undefined && known !== loader && options.replace !== true) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `registerStore: ${key} is already registered; pass { replace: true } to replace its loader`,
      { details: { scheme: key } },
    );
  }
  loaders.set(key, loader);
}

/** The registered schemes, sorted, each with its colon (`['file:', 'memory:', …]`). */
export function registeredSchemes(): string[] {
  return [...loaders.keys()].sort();
}

function shown(url: string): string {
  return JSON.stringify(url.slice(0, 200));
}

/**
 * The `file:` URL a caller probably meant when `url` is a path, not a URL: relative (`./dir`,
 * `../dir`, `dir`), absolute (`/dir`, `C:\dir`, `\\server\share`) or under the home directory
 * (`~`, `~/dir`, which the file store would not expand: the suggestion does).
 */
function pathSuggestion(url: string): string | undefined {
  // A scheme without its colon (`memory`) is no path.
  if (loaders.has(`${url.toLowerCase()}:`)) return `${url}:`;
  if (url === '~' || url.startsWith('~/') || url.startsWith('~\\')) return `file:${homedir()}${url.slice(1)}`;
  // A Windows drive letter parses as a one-letter scheme.
  if (/^[A-Za-z]:[\\/]/.test(url) || isAbsolute(url)) return `file:${url}`;
  const colon = url.indexOf(':');
  const slash = url.search(/[\\/]/);
  // No scheme before the first path separator: a relative path.
  if (colon === -1 || (slash !== -1 && slash < colon)) return `file:${url}`;
  return undefined;
}

/**
 * Opens the store `url` names through the loader registered for its scheme. An unknown scheme is
 * `INVALID_ARGUMENT` listing the registered ones; a path instead of a URL is `INVALID_ARGUMENT`
 * saying which `file:` URL it probably meant.
 */
export async function openRegisteredStore(url: string, options: OpenStoreOptions = {}): Promise<SessionStore> {
  if (typeof url !== 'string' || url.length === 0) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Cannot open store ${JSON.stringify(String(url).slice(0, 200))}: expected a store URL such as file:./sessions`,
    );
  }
  const suggestion = pathSuggestion(url);
  if (suggestion !== undefined) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Cannot open store ${shown(url)}: a store URL starts with its scheme; did you mean ${shown(suggestion)}?`,
      {
        details: { suggestion },
      },
    );
  }
  const scheme = url.slice(0, url.indexOf(':') + 1).toLowerCase();
  const loader = loaders.get(scheme);
  if (loader === undefined) {
    const registered = registeredSchemes();
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Cannot open store ${shown(url)}: unknown scheme ${JSON.stringify(scheme)}; registered: ${registered.length === 0 ? 'none' : registered.join(', ')} (add one with registerStore)`,
      { details: { scheme, registered } },
    );
  }
  const opened: unknown = await loader(url, options);
  if (isStore(opened)) return opened;
  if (!isDriver(opened)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Cannot open store ${shown(url)}: the loader of ${scheme} returned neither a store nor a driver`,
      { details: { scheme } },
    );
  }
  try {
    return createSessionStore(opened, options);
  } catch (error) {
    // Options the core refuses (a malformed key): the driver just opened is not leaked.
    await opened.close().catch(() => undefined);
    throw error;
  }
}

function isStore(value: unknown): value is SessionStore {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<SessionStore>).load === 'function' &&
    typeof (value as Partial<SessionStore>).append === 'function'
  );
}

/** A driver has the driver's reads (and its `close`, which a failed open needs). */
function isDriver(value: unknown): value is AnyStoreDriver {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AnyStoreDriver>).readHead === 'function' &&
    typeof (value as Partial<AnyStoreDriver>).close === 'function'
  );
}
