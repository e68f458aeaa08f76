/**
 * `searchText`, the backend's own full-text search: a store that declares it finds what was
 * appended and saved, within the user and sessions asked for, and has none when its records are
 * encrypted (an index would leak them); a store that does not declare it has none at all, and
 * active memory keeps its own index instead.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { StateKeyRing } from '../../state/types.js';
import type { SessionStore, TextSearchHit, TextSearchQuery } from '../../store/session-store-types.js';
import { expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const RING: StateKeyRing = { current: 'k1', keys: { k1: 'conformance-search-secret-0123456789' } };

function searchOf(store: SessionStore): (query: TextSearchQuery) => Promise<TextSearchHit[]> {
  const search = store.searchText;
  if (search === undefined)
    throw new Error(`${store.name}: searchText is undefined, but the config declares capabilities.textSearch`);
  return search;
}

/** Registers the text-search spec. */
export function textSearchSpec(suite: ConformanceSuite): void {
  suite.describe('text-search', "the backend's full-text search", (spec) => {
    spec.it(
      'finds appended and saved messages by a word, only in the user and sessions asked for',
      async () => {
        const store = await spec.open();
        const search = searchOf(store);
        const mine = await store.save(
          Session.create({
            id: freshId(),
            userId: 'ann',
            messages: [Message.user('the heron stood in the reeds', { id: 'saved-1' })],
          }),
        );
        await store.append(mine.id, [
          Message.assistant('a quiet heron at dawn', { id: 'appended-1' }),
          Message.user('nothing to see', { id: 'other-1' }),
        ]);
        const theirs = await store.save(
          Session.create({
            id: freshId(),
            userId: 'bob',
            messages: [Message.user('a heron of his own', { id: 'bob-1' })],
          }),
        );
        const hits = await search({ text: 'heron', userId: 'ann', limit: 10 });
        expect(hits.map((hit) => hit.messageId).sort()).toEqual(['appended-1', 'saved-1']);
        for (const hit of hits) {
          expect(hit.sessionId).toBe(mine.id);
          expect(hit.score).toBeGreaterThan(0);
          expect(hit.score).toBeLessThanOrEqual(1);
        }
        expect((await search({ text: 'heron', userId: 'bob', limit: 10 })).map((hit) => hit.messageId)).toEqual([
          'bob-1',
        ]);
        expect(await search({ text: 'heron', userId: 'ann', sessionIds: [theirs.id], limit: 10 })).toEqual([]);
        expect(await search({ text: 'heron', userId: 'carol', limit: 10 })).toEqual([]);
        expect(await search({ text: 'heron', userId: 'ann', limit: 1 })).toHaveLength(1);
      },
      { needs: ['textSearch'] },
    );

    spec.it(
      'bad queries are refused with typed errors',
      async () => {
        const search = searchOf(await spec.open());
        await expectCode(() => search({ text: '   ', limit: 5 }), 'INVALID_ARGUMENT');
        await expectCode(() => search({ text: 'x', limit: 0 }), 'INVALID_ARGUMENT');
        await expectCode(() => search({ text: 'x', sessionIds: ['../up'], limit: 5 }), 'INVALID_ID');
      },
      { needs: ['textSearch'] },
    );

    spec.it(
      'a store whose records are encrypted has no searchText (an index would leak them)',
      async () => {
        const store = await spec.open({ encryption: RING });
        expect(store.searchText).toBeUndefined();
      },
      { needs: ['textSearch'] },
    );

    spec.it(
      'without full-text search, searchText is undefined: active memory keeps its own index',
      async () => {
        const store = await spec.open();
        expect(store.searchText).toBeUndefined();
      },
      { needs: ['noTextSearch'] },
    );
  });
}
