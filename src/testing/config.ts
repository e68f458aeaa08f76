/**
 * What a store author gives `runStoreConformance`: how to make a fresh store, how to clean it up,
 * which capabilities the store declares, and which optional powers (a second process, a second
 * handle on the same data, a directory, the backend's raw contents) the suite may use.
 * @module
 */
import type { SessionStoreOptions } from '../store/session-store.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { SpecScope } from './suite.js';

/** The behaviours the suite checks, one spec file each; also the keys of `skip`. */
export const CONFORMANCE_SPECS = [
  'round-trip',
  'immutability',
  'list',
  'idempotent-append',
  'sequence',
  'conflict',
  'concurrent-appends',
  'cross-process',
  'hostile-ids',
  'encryption',
  'ttl',
  'delete',
  'close',
  'values',
  'append-state',
  'hostile-values',
  'titles',
  'text-search',
  'change-feed',
  'forget-user',
  'user-keys',
  'damaged-session',
  'refused-writes',
  'marks',
  'replace-tail',
  'kinds',
  'read-at',
  'purge',
] as const;

/** Name of one spec of the suite. */
export type ConformanceSpec = (typeof CONFORMANCE_SPECS)[number];

/**
 * A key of `skip`: a whole spec (`'ttl'`), or one test of it as `'<spec> > <test title>'`
 * (`'ttl > purgeExpired removes expired sessions and returns how many'`).
 */
export type SkipKey = ConformanceSpec | `${ConformanceSpec} > ${string}`;

/** A value that is the same for every store, or computed from the store `create` returned. */
export type PerStore<T> = T | ((store: SessionStore) => T);

/**
 * How a child process opens the store under test: it imports the `register` modules (whose
 * `registerStore` calls register the URL's scheme), then opens `url` through the scheme registry.
 */
export interface CrossProcessConfig {
  /** The URL that opens, in another process, the same data as the store `create` returned. */
  readonly url: PerStore<string>;
  /**
   * The modules the child imports before it opens `url`, for their `registerStore` calls: a
   * package name (`'chatstate/stores'` registers chatstate's own stores, `'my-store/register'`),
   * a `file:` URL, or a path (relative paths are taken from the working directory). A `.ts` module
   * is loaded through `tsx` when it is installed.
   */
  readonly register?: string | readonly string[];
  /**
   * Options the child opens the store with. They cross a process boundary (structured clone), so
   * functions are not allowed; they must describe the store `create()` made without options
   * (in particular, no encryption key unless `create()` uses the same one).
   */
  readonly options?: SessionStoreOptions;
}

/**
 * The optional capabilities the store declares (its driver implements them). The suite runs the
 * specs of those it has, and checks the core's answer for those it lacks: values refused with
 * `UNSUPPORTED`, no `searchText` (active memory then keeps its own index). Purging needs no
 * declaration: the core lists and removes when the driver does not purge itself.
 */
export interface StoreCapabilitiesConfig {
  /** Active memory's values (`ValueDriver`). @default true */
  readonly values?: boolean;
  /** The backend's own full-text search (`TextSearchDriver` with `capabilities.fullTextSearch`). @default false */
  readonly textSearch?: boolean;
  /**
   * Which writers `store.changes` tells about (see `ChangeCoverage`): `all` for a store whose feed
   * hears every process (a `ChangeFeedDriver`, or a driver with `soleWriter`), `this-store` when it
   * tells only its own writes. @default 'this-store'
   */
  readonly changeFeed?: 'all' | 'this-store';
}

/** A copy of a store's data taken by `StoreConformanceConfig.backup`. */
export interface StoreBackup {
  /** A store over the copy (closed by the suite after the test). */
  open(options?: SessionStoreOptions): Promise<SessionStore>;
  /** Every byte of the copy, as `contents` gives a store's (names of files and keys included). */
  contents(): Promise<Buffer>;
  /** Removes the copy (called by the suite after the test, once the stores over it are closed). */
  remove(): Promise<void>;
}

/** Configuration of `runStoreConformance`. */
export interface StoreConformanceConfig {
  /** Shown in the suite's title: `SessionStore conformance: <name>`. */
  readonly name: string;
  /**
   * A fresh, empty, open store. `options` turn on what a spec needs (an encryption key, a fake
   * clock, a token counter); pass them on to `createSessionStore` or the store's factory.
   */
  create(options?: SessionStoreOptions): Promise<SessionStore>;
  /**
   * Removes what a store from `create` left behind (files, tables, keys). It is called once per
   * store after each test, possibly on a store the test already closed, after every store
   * `reopen` gave over the same data was closed.
   * @default store.close()
   */
  destroy?(store: SessionStore): Promise<void>;
  /**
   * A second open store over the same data as `store` (for the file store: the same directory),
   * with other options: how the encryption spec checks key rotation, a missing key and a wrong
   * key. The suite closes it after the test. Without it, those tests skip with their reason.
   */
  reopen?(store: SessionStore, options?: SessionStoreOptions): Promise<SessionStore>;
  /** How child processes open the same store. Without it, the cross-process spec skips with its reason. */
  readonly crossProcess?: CrossProcessConfig;
  /** The optional capabilities the store declares; see `StoreCapabilitiesConfig` for the defaults. */
  readonly capabilities?: StoreCapabilitiesConfig;
  /**
   * The directory that holds everything of the store (for stores that keep files). The hostile-id
   * spec then checks that no file appeared beside it, and the encryption spec that no plaintext
   * reached it.
   */
  readonly directory?: PerStore<string>;
  /**
   * Damages the stored head of session `id` of `store` the way a hand edit or another program
   * would (for a SQL store: a column of its row set to a value no store writes). The
   * damaged-session spec then checks the damage stays with that session. Stores that repair what
   * they read (the file store) have their own tests instead.
   */
  damage?(store: SessionStore, id: string): Promise<void>;
  /**
   * Everything the backend holds for `store`, as it holds it: every table row of its schema, every
   * key under its prefix with its value, every byte of its files. The forget-user spec then checks
   * that no byte of it holds a forgotten user's text (names of keys and files included), and the
   * encryption spec that no plaintext reached it. Bytes the backend may compress (an RDB dump, a
   * TOASTed column read raw) hide text from such a scan: give them as the backend reads them back.
   */
  contents?(store: SessionStore): Promise<Buffer>;
  /**
   * A copy of everything the backend holds for `store` now, kept apart from it as a backup is
   * (for a store of files: its files copied; for a database: its rows in tables of their own; for
   * Redis: its keys under another prefix). The user-keys spec then forgets a user and checks
   * that the copy still yields nothing of them.
   */
  backup?(store: SessionStore): Promise<StoreBackup>;
  /**
   * Store-specific opt-outs, each with its reason (shown in the skipped test's title). A key names
   * a spec or one test (see `SkipKey`); a key that names nothing fails the suite, so a typo or a
   * renamed test is noticed instead of silently running the test again.
   */
  readonly skip?: Partial<Record<SkipKey, string>>;
  /**
   * Store-specific tests, registered in an `extras` block of the suite with the same harness
   * (`scope.open()` gives fresh stores that are destroyed after each test).
   */
  extras?(scope: SpecScope): void;
}
