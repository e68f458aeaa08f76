/** What a store's migration to heads with kinds must keep, checked the same way on SQLite and Postgres. */
import { expect } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';

/**
 * On `store`, reopened over tables written before heads had a kind and holding `chat` and the
 * knowledge session `facts`: both still list, and once `facts` is saved again it lists only under its kind.
 */
export async function expectKindRecordedOnSave(store: SessionStore): Promise<void> {
  expect((await store.list()).map((row) => row.id).sort()).toEqual(['chat', 'facts']);
  const facts = await store.load('facts');
  await store.save(facts, { expectedVersion: facts.version });
  expect((await store.list()).map((row) => row.id)).toEqual(['chat']);
  expect((await store.list({ kinds: ['knowledge'] })).map((row) => [row.id, row.kind])).toEqual([
    ['facts', 'knowledge'],
  ]);
}
