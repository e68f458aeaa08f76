/**
 * The harness every spec registers through: fresh stores per test (destroyed afterwards), skips
 * with their reasons in the test title, and the optional powers of the configuration.
 * @module
 */
import { afterEach, describe, it } from 'vitest';
import type { SessionStoreOptions } from '../store/session-store.js';
import type { SessionStore } from '../store/types.js';
import type { ConformanceSpec, CrossProcessConfig, StoreConformanceConfig } from './config.js';

/** An optional power of the configuration a test needs; without it the test skips with a reason. */
export type Requirement = 'reopen' | 'crossProcess' | 'directory';

const MISSING: Record<Requirement, string> = {
  reopen: 'the config has no reopen() (a second store over the same data)',
  crossProcess: 'the config has no crossProcess.url (the store cannot be opened from another process)',
  directory: 'the config has no directory (the store keeps no files the suite can inspect)',
};

/** Timeout of a suite test unless it sets its own: generous, for stores behind a network. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Options of `SpecScope.it`. */
export interface TestOptions {
  /** Powers of the configuration the test uses. */
  readonly needs?: readonly Requirement[];
  /** Per-test timeout. @default 60_000 */
  readonly timeoutMs?: number;
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
  /** The URL and options a child process opens `store` with (needs `crossProcess`). */
  crossProcessOf(store: SessionStore): { url: string; options?: CrossProcessConfig['options'] };
}

function resolve<T>(value: T | ((store: SessionStore) => T), store: SessionStore): T {
  return typeof value === 'function' ? (value as (store: SessionStore) => T)(store) : value;
}

/** The harness of one run of the suite. */
export class ConformanceSuite {
  private readonly created: SessionStore[] = [];
  private readonly reopened: SessionStore[] = [];
  private readonly skipsUsed = new Set<string>();

  constructor(readonly config: StoreConformanceConfig) {}

  /** Registers the hook that cleans up after every test; call once inside the suite's `describe`. */
  registerCleanup(): void {
    afterEach(async () => {
      const reopened = this.reopened.splice(0);
      const created = this.created.splice(0);
      const failures: unknown[] = [];
      // Second handles first: `destroy` may remove the data they share.
      for (const store of reopened) await store.close().catch((error: unknown) => failures.push(error));
      for (const store of created) {
        await (this.config.destroy === undefined ? store.close() : this.config.destroy(store)).catch((error: unknown) => failures.push(error));
      }
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
        throw new Error(`${this.config.name}: config.skip names no spec or test: ${unused.map((key) => JSON.stringify(key)).join(', ')}`);
      }
    });
  }

  private skipReason(spec: ConformanceSpec | 'extras', title: string, needs: readonly Requirement[]): string | undefined {
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
    const missing = needs.find((need) => this.config[need] === undefined);
    return missing === undefined ? undefined : MISSING[missing];
  }

  private scope(spec: ConformanceSpec | 'extras'): SpecScope {
    const config = this.config;
    const need = <T>(value: T | undefined, requirement: Requirement): T => {
      if (value === undefined) throw new Error(`${config.name}: the test needs ${requirement}, but ${MISSING[requirement]}`);
      return value;
    };
    return {
      config,
      it: (title, body, options = {}) => {
        const reason = this.skipReason(spec, title, options.needs ?? []);
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
      crossProcessOf: (store) => {
        const crossProcess = need(config.crossProcess, 'crossProcess');
        return { url: resolve(crossProcess.url, store), ...(crossProcess.options === undefined ? {} : { options: crossProcess.options }) };
      },
    };
  }
}
