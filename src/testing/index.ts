/**
 * `chatstate/testing`: the conformance suite every `SessionStore` passes, for chatstate's own
 * stores and for anyone certifying theirs. Run it under vitest (an optional peer dependency:
 * importing this module without it is `MISSING_DEPENDENCY`):
 *
 * ```ts
 * // test/my-store.test.ts
 * import { registerStore } from 'chatstate/stores';
 * import { runStoreConformance } from 'chatstate/testing';
 * import { myStore } from '../src/my-store.js';
 *
 * // src/register.ts holds: registerStore('mystore', async (url, options) => myStore(url, options));
 * import '../src/register.js';
 *
 * runStoreConformance({
 *   name: 'my-store',
 *   create: async (options) => myStore(await freshUrl(), options),
 *   destroy: async (store) => store.close(),
 *   crossProcess: { url: (store) => urlOf(store), register: './src/register.ts' },
 *   capabilities: { values: false },
 *   skip: { 'ttl > purgeExpired removes expired sessions and returns how many': 'expiry is native' },
 * });
 * ```
 *
 * One spec per behaviour: round trips, immutability at the boundary, list, idempotent append,
 * sequence order, CONFLICT, concurrent appends in one process and from several processes,
 * hostile ids, encryption at rest, retention, delete and close, active memory's values,
 * appends that carry state, hostile values (kept exactly or refused with a typed error), titles,
 * full-text search, the change feed, forgetUser, per-user keys (a backup taken before a user is
 * forgotten yields nothing of them after), and refused writes (a property over random bad
 * writes: each refusal leaves what the store reads, and the bytes of its files, as they were; it
 * needs `fast-check`, and skips with that reason without it). Specs use only the public `SessionStore` API; a capability the store does
 * not declare is checked for the core's answer instead (values refused with `UNSUPPORTED`, no
 * `searchText`); every skip carries its reason in the test's title.
 *
 * The kit sits above the store contract (`chatstate/store`) and imports no session store (only the
 * built-in user key directory, which the user-keys spec keeps its keys in): its child
 * processes open the store under test by URL through the scheme registry, after importing the
 * modules `crossProcess.register` names.
 * @module
 */
import { InvalidInputError, errorMessage } from '../errors.js';

export {
  CONFORMANCE_SPECS,
  type ConformanceSpec,
  type CrossProcessConfig,
  type PerStore,
  type SkipKey,
  type StoreBackup,
  type StoreCapabilitiesConfig,
  type StoreConformanceConfig,
} from './config.js';
export type { CrossProcessPlan, Requirement, SpecScope, TestOptions } from './suite.js';

// The suite is written for vitest: without it, the import fails here with the fix, not with a
// resolution error from deep inside the kit.
try {
  await import('vitest');
} catch (error) {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
  throw new InvalidInputError(
    'MISSING_DEPENDENCY',
    `chatstate/testing runs under vitest, which could not be loaded (${errorMessage(error)}); install it with \`npm install -D vitest\``,
    {
      cause: error,
      details: { package: 'vitest' },
    },
  );
}

const conformance = await import('./conformance.js');

/**
 * Registers the whole conformance suite for one store with vitest, as
 * `describe('SessionStore conformance: <name>')`; call it at the top level of a test file.
 * Each test gets fresh stores from `config.create` and destroys them afterwards.
 */
export const runStoreConformance: typeof conformance.runStoreConformance = conformance.runStoreConformance;
