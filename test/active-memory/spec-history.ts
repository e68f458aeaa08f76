/** `history`: pages by sequence number over the store's tail reads. */
import { expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { InvalidInputError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { expectRejection, seedSession, type Stores } from './harness.js';

const texts = (messages: readonly Message[]): string[] => messages.map((message) => Message.text(message));
const numbered = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, index) => `message ${from + index}`);

/** Registers the history tests. */
export function historySpec(stores: Stores): void {
  it('pages history newest page first, each page oldest first, with a cursor to the next older page', async () => {
    const store = await stores.open();
    await seedSession(store, 'paged', undefined, numbered(0, 23));
    const handle = createSessionHandle({ store, sessionId: 'paged' });
    const first = await handle.history({ limit: 10 });
    expect(texts(first.messages)).toEqual(numbered(13, 23));
    expect(first.nextBefore).toBe(first.messages[0]?.seq);
    const second = await handle.history({ limit: 10, before: first.nextBefore });
    expect(texts(second.messages)).toEqual(numbered(3, 13));
    const third = await handle.history({ limit: 10, before: second.nextBefore });
    expect(texts(third.messages)).toEqual(numbered(0, 3));
    expect(third.nextBefore).toBeUndefined();
  });

  it('a page that ends exactly at the first message has no cursor', async () => {
    const store = await stores.open();
    await seedSession(store, 'even', undefined, numbered(0, 20));
    const handle = createSessionHandle({ store, sessionId: 'even' });
    const first = await handle.history({ limit: 10 });
    const second = await handle.history({ limit: 10, before: first.nextBefore });
    expect(texts(second.messages)).toEqual(numbered(0, 10));
    expect(second.nextBefore).toBeUndefined();
  });

  it('sees appended messages and defaults to the last 50', async () => {
    const store = await stores.open();
    await seedSession(store, 'growing', undefined, numbered(0, 40));
    await store.append(
      'growing',
      numbered(40, 60).map((text) => Message.user(text)),
    );
    const handle = createSessionHandle({ store, sessionId: 'growing' });
    const page = await handle.history();
    expect(texts(page.messages)).toEqual(numbered(10, 60));
    expect(
      page.messages.every(
        (message, index) => index === 0 || (message.seq as number) > (page.messages[index - 1]?.seq as number),
      ),
    ).toBe(true);
    const rest = await handle.history({ before: page.nextBefore });
    expect(texts(rest.messages)).toEqual(numbered(0, 10));
  });

  it('a session that does not exist has an empty history', async () => {
    const store = await stores.open();
    const page = await createSessionHandle({ store, sessionId: 'nobody-here' }).history();
    expect(page.messages).toEqual([]);
    expect(page.nextBefore).toBeUndefined();
  });

  it('rejects a bad limit or cursor with INVALID_ARGUMENT', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'any' });
    for (const options of [{ limit: 0 }, { limit: 1001 }, { limit: 2.5 }, { before: -1 }, { before: Number.NaN }]) {
      await expectRejection(handle.history(options), InvalidInputError, 'INVALID_ARGUMENT');
    }
  });
}
