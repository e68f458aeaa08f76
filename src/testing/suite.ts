/**
 * The harness every spec registers through: fresh stores per test (destroyed afterwards), skips
 * with their reasons in the test title, and the optional powers of the configuration.
 * @module
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, it } from 'vitest';
import type { SessionStoreOptions } from '../store/session-store.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { ConformanceSpec, CrossProcessConfig, StoreBackup, StoreConformanceConfig } from './config.js';

/**
 * What a test needs of the configuration: an optional power (`reopen`, `crossProcess`,
 * `directory`, `contents`), a declared capability (`values`, `textSearch`), or its absence
 * (`noValues`, `noTextSearch`: tests of the core's answer to a store without it). Without it the
 * test skips with a reason.
 */
export type Requirement =
  | 'reopen'
  | 'crossProcess'
  | 'directory'
  | 'damage'
  | 'contents'
  | 'backup'
  | 'values'
  | 'textSearch'
  | 'noValues'
  | 'noTextSearch'
  | 'sharedChanges';

const MISSING: Record<Requirement, string> = {
  reopen: 'the config has no reopen() (a second store over the same data)',
  crossProcess: 'the config has no crossProcess.url (the store cannot be opened from another process)',
  directory: 'the config has no directory (the store keeps no files the suite can inspect)',
  damage: 'the config has no damage() (a way to damage a stored session as a foreign writer would)',
  contents: 'the config has no contents() (the suite cannot read what the backend holds)',
  backup: 'the config has no backup() (the suite cannot take a copy of what the backend holds)',
  values: 'the store declares no values capability (config.capabilities.values is false)',
  textSearch: 'the store declares no full-text search (config.capabilities.textSearch is not true)',
  noValues: 'the store declares the values capability (this checks a store without it)',
  noTextSearch: 'the store declares full-text search (this checks a store without it)',
  sharedChanges: "the store's change feed tells only its own writes (config.capabilities.changeFeed is not 'all')",
};

/** Whether `config` meets `requirement`. */
function meets(config: StoreConformanceConfig, requirement: Requirement): boolean {
  const values = config.capabilities?.values !== false;
  const textSearch = config.capabilities?.textSearch === true;
  switch (requirement) {
    case 'reopen':
    case 'crossProcess':
    case 'directory':
    case 'damage':
    case 'contents':
    case 'backup':
      return config[requirement] !== undefined;
    case 'values':
      return values;
    case 'noValues':
      return !values;
    case 'textSearch':
      return textSearch;
    case 'noTextSearch':
      return !textSearch;
    case 'sharedChanges':
      return config.capabilities?.changeFeed === 'all';
    default: {
      const never: never = requirement;
      throw new Error(`unknown requirement ${String(never)}`);
    }
  }
}

/** What a child process imports and opens (see `CrossProcessConfig`), its module specifiers resolved. */
export interface CrossProcessPlan {
  readonly url: string;
  readonly options?: CrossProcessConfig['options'];
  /** Specifiers the child imports: `file:` URLs for paths, package names as given. */
  readonly register: readonly string[];
}

/** A `register` entry as the child imports it: a path becomes a `file:` URL (from the working directory); URLs and package names stay. */
function moduleSpecifier(entry: unknown, store: string): string {
  if (typeof entry !== 'string' || entry.length === 0)
    throw new Error(`${store}: crossProcess.register holds ${JSON.stringify(entry)}, not a module specifier`);
  // A URL scheme of two letters at least: `C:\x` is a Windows path.
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(entry)) return entry;
  if (entry.startsWith('.') || isAbsolute(entry)) return pathToFileURL(resolvePath(entry)).href;
  return entry;
}

/** Timeout of a suite test unless it sets its own: generous, for stores behind a network. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Options of `SpecScope.it`. */
export interface TestOptions {
  /** Powers of the configuration the test uses. */
  readonly needs?: readonly Requirement[];
  /** Per-test timeout. @default 60_000 */
  readonly timeoutMs?: number;
  /** Why the test cannot run where the suite runs (an optional package it needs is missing): it skips with this reason. */
  readonly unavailable?: string;
}

/** What a spec's tests use: stores and the configuration. */
export interface SpecScope {
  readonly config: StoreConformanceConfig;
  /** Registers a test, or a visibly skipped one when the config skips it or lacks what it needs. */
  it(title: string, body: () => Promise<void>, options?: TestOptions): void;
  /** A fresh empty store, destroyed after the test. */
  open(options?: SessionStoreOptions): Promise<SessionStore>;
  /** A second store over the data of `store`, closed after the test (needs `reopen`). */
  reopen(store: SessionStore, options?: SessionStoreOptions): Promise<SessionStore>;
  /** The directory of `store` (needs `directory`). */
  directoryOf(store: SessionStore): string;
  /** Damages the stored head of session `id` (needs `damage`). */
  damage(store: SessionStore, id: string): Promise<void>;
  /** Everything the backend holds for `store`, as it holds it (needs `contents`). */
  contentsOf(store: SessionStore): Promise<Buffer>;
  /** A copy of what the backend holds for `store` now, removed after the test (needs `backup`). */
  backup(store: SessionStore): Promise<StoreBackup>;
  /** The URL, options and registering modules a child process opens `store` with (needs `crossProcess`). */
  crossProcessOf(store: SessionStore): CrossProcessPlan;
  /** Whether the configuration meets `requirement` (a declared capability, or its absence). */
  has(requirement: Requirement): boolean;
}

function resolve<T>(value: T | ((store: SessionStore) => T), store: SessionStore): T {
  return typeof value === 'function' ? (value as (store: SessionStore) => T)(store) : value;
}

/** The harness of one run of the suite. */
export class ConformanceSuite {
  private readonly created: SessionStore[] = [];
  private readonly reopened: SessionStore[] = [];
  private readonly backups: StoreBackup[] = [];
  private readonly skipsUsed = new Set<string>();

  constructor(readonly config: StoreConformanceConfig) {}

  /** Registers the hook that cleans up after every test; call once inside the suite's `describe`. */
  registerCleanup(): void {
    afterEach(async () => {
      const reopened = this.reopened.splice(0);
      const created = this.created.splice(0);
      const backups = this.backups.splice(0);
      const failures: unknown[] = [];
      // Second handles first: `destroy` may remove the data they share.
      for (const store of reopened) await store.close().catch((error: unknown) => failures.push(error));
      for (const store of created) {
        await (this.config.destroy === undefined ? store.close() : this.config.destroy(store)).catch((error: unknown) =>
          failures.push(error),
        );
      }
      for (const backup of backups) await backup.remove().catch((error: unknown) => failures.push(error));
      if (failures.length > 0) throw new AggregateError(failures, `${this.config.name}: cleanup after the test failed`);
    });
  }

  /** Registers one spec: a `describe` whose tests go through a `SpecScope`. */
  describe(spec: ConformanceSpec | 'extras', title: string, body: (scope: SpecScope) => void): void {
    describe(`${spec}: ${title}`, () => body(this.scope(spec)));
  }

  /** Registers a test that fails when a key of `config.skip` named no spec and no test. */
  registerSkipCheck(): void {
    const keys = Object.keys(this.config.skip ?? {});
    if (keys.length === 0) return;
    it('every key of config.skip names a spec or a test of the suite', () => {
      const unused = keys.filter((key) => !this.skipsUsed.has(key));
      if (unused.length > 0) {
        throw new Error(
          `${this.config.name}: config.skip names no spec or test: ${unused.map((key) => JSON.stringify(key)).join(', ')}`,
        );
      }
    });
  }

  private skipReason(
    spec: ConformanceSpec | 'extras',
    title: string,
    needs: readonly Requirement[],
  ): string | undefined {
    const skip: Partial<Record<string, string>> = this.config.skip ?? {};
    const testKey = `${spec} > ${title}`;
    if (skip[testKey] !== undefined) {
      this.skipsUsed.add(testKey);
      return skip[testKey];
    }
    if (skip[spec] !== undefined) {
      this.skipsUsed.add(spec);
      return skip[spec];
    }
    const missing = needs.find((need) => !meets(this.config, need));
    return missing === undefined ? undefined : MISSING[missing];
  }

  private scope(spec: ConformanceSpec | 'extras'): SpecScope {
    const config = this.config;
    const need = <T>(value: T | undefined, requirement: Requirement): T => {
      if (value === undefined)
        throw new Error(`${config.name}: the test needs ${requirement}, but ${MISSING[requirement]}`);
      return value;
    };
    return {
      config,
      it: (title, body, options = {}) => {
        const reason = this.skipReason(spec, title, options.needs ?? []) ?? options.unavailable;
        if (reason === undefined) it(title, body, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        // The reason goes into the title, so a skipped behaviour is visible in every report (Hono's style).
        else it.skip(`${title} [skipped: ${reason}]`, body);
      },
      open: async (options) => {
        const store = await config.create(options);
        this.created.push(store);
        return store;
      },
      reopen: async (store, options) => {
        const second = await need(config.reopen, 'reopen').call(config, store, options);
        this.reopened.push(second);
        return second;
      },
      directoryOf: (store) => resolve(need(config.directory, 'directory'), store),
      damage: (store, id) => need(config.damage, 'damage').call(config, store, id),
      contentsOf: async (store) => need(config.contents, 'contents').call(config, store),
      backup: async (store) => {
        const backup = await need(config.backup, 'backup').call(config, store);
        this.backups.push(backup);
        // Stores over the copy are closed before it is removed, with the other second handles.
        return {
          open: async (options) => {
            const opened = await backup.open(options);
            this.reopened.push(opened);
            return opened;
          },
          contents: () => backup.contents(),
          remove: () => backup.remove(),
        };
      },
      crossProcessOf: (store) => {
        const crossProcess = need(config.crossProcess, 'crossProcess');
        const register =
          crossProcess.register === undefined
            ? []
            : typeof crossProcess.register === 'string'
              ? [crossProcess.register]
              : crossProcess.register;
        if (!Array.isArray(register))
          throw new Error(`${config.name}: crossProcess.register must be a module specifier or an array of them`);
        return {
          url: resolve(crossProcess.url, store),
          ...(crossProcess.options === undefined ? {} : { options: crossProcess.options }),
          register: register.map((entry) => moduleSpecifier(entry, config.name)),
        };
      },
      has: (requirement) => meets(config, requirement),
    };
  }
}
