/**
 * `runStoreConformance`: every spec of the suite registered with vitest for one store. Loaded by
 * `chatstate/testing` once it knows vitest is installed.
 * @module
 */
import { describe } from 'vitest';
import { CONFORMANCE_SPECS, type ConformanceSpec, type StoreConformanceConfig } from './config.js';
import { closeSpec } from './specs/close.js';
import { concurrentAppendsSpec } from './specs/concurrent-appends.js';
import { conflictSpec } from './specs/conflict.js';
import { crossProcessSpec } from './specs/cross-process.js';
import { deleteSpec } from './specs/delete.js';
import { encryptionSpec } from './specs/encryption.js';
import { hostileIdsSpec } from './specs/hostile-ids.js';
import { hostileValuesSpec } from './specs/hostile-values.js';
import { idempotentAppendSpec } from './specs/idempotent-append.js';
import { immutabilitySpec } from './specs/immutability.js';
import { listSpec } from './specs/list.js';
import { roundTripSpec } from './specs/round-trip.js';
import { sequenceSpec } from './specs/sequence.js';
import { ttlSpec } from './specs/ttl.js';
import { valuesSpec } from './specs/values.js';
import { appendStateSpec } from './specs/append-state.js';
import { textSearchSpec } from './specs/text-search.js';
import { titlesSpec } from './specs/titles.js';
import { changeFeedSpec } from './specs/change-feed.js';
import { forgetUserSpec } from './specs/forget-user.js';
import { damagedSessionSpec } from './specs/damaged-session.js';
import { refusedWritesSpec } from './specs/refused-writes.js';
import { userKeysSpec } from './specs/user-keys.js';
import { marksSpec } from './specs/marks.js';
import { replaceTailSpec } from './specs/replace-tail.js';
import { sessionKindsSpec } from './specs/session-kinds.js';
import { readAtSpec } from './specs/read-at.js';
import { purgeSpec } from './specs/purge.js';
import { ConformanceSuite } from './suite.js';

const SPECS: Readonly<Record<ConformanceSpec, (suite: ConformanceSuite) => void>> = {
  'round-trip': roundTripSpec,
  immutability: immutabilitySpec,
  list: listSpec,
  'idempotent-append': idempotentAppendSpec,
  sequence: sequenceSpec,
  conflict: conflictSpec,
  'concurrent-appends': concurrentAppendsSpec,
  'cross-process': crossProcessSpec,
  'hostile-ids': hostileIdsSpec,
  encryption: encryptionSpec,
  ttl: ttlSpec,
  delete: deleteSpec,
  close: closeSpec,
  values: valuesSpec,
  'append-state': appendStateSpec,
  'hostile-values': hostileValuesSpec,
  titles: titlesSpec,
  'text-search': textSearchSpec,
  'change-feed': changeFeedSpec,
  'forget-user': forgetUserSpec,
  'user-keys': userKeysSpec,
  'damaged-session': damagedSessionSpec,
  marks: marksSpec,
  'refused-writes': refusedWritesSpec,
  'replace-tail': replaceTailSpec,
  kinds: sessionKindsSpec,
  'read-at': readAtSpec,
  purge: purgeSpec,
};

/**
 * Registers the whole conformance suite for one store with vitest, as
 * `describe('SessionStore conformance: <name>')`; call it at the top level of a test file.
 * Each test gets fresh stores from `config.create` and destroys them afterwards.
 */
export function runStoreConformance(config: StoreConformanceConfig): void {
  describe(`SessionStore conformance: ${config.name}`, () => {
    const suite = new ConformanceSuite(config);
    suite.registerCleanup();
    for (const spec of CONFORMANCE_SPECS) SPECS[spec](suite);
    const extras = config.extras;
    if (extras !== undefined)
      suite.describe('extras', `store-specific tests of ${config.name}`, (scope) => extras.call(config, scope));
    suite.registerSkipCheck();
  });
}
