/**
 * The active-memory spec: one set of tests run against every store (each *.test.ts here names
 * one store). Split by concern: history, scoped values, recall, isolation, working memory, facts.
 */
import { describe } from 'vitest';
import { storesOf, type StoreUnderTest } from './harness.js';
import { historySpec } from './spec-history.js';
import { isolationSpec } from './spec-isolation.js';
import { lifecycleSpec } from './spec-lifecycle.js';
import { recallSpec } from './spec-recall.js';
import { valuesSpec } from './spec-values.js';
import { workingMemorySpec } from './spec-working-memory.js';

/** Registers the whole spec for `subject`. */
export function runActiveMemorySpec(subject: StoreUnderTest): void {
  describe(`active memory: ${subject.name}`, () => {
    const stores = storesOf(subject);
    describe('history', () => historySpec(stores));
    describe('scoped values', () => valuesSpec(stores));
    describe('recall and remember', () => recallSpec(stores));
    describe('isolation between users', () => isolationSpec(stores));
    describe('working memory', () => workingMemorySpec(stores));
    describe('facts with a lifecycle', () => lifecycleSpec(stores));
  });
}
