/**
 * The store reads indexing is made of: every message after a sequence number, read as tail
 * pages (never a full load), and bounded concurrency over sessions.
 * @module
 */
import { ChatstateError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { SessionStore } from '../store/session-store-types.js';

/** Messages per `readMessages` call while indexing: bounded, so that no one statement of a server store runs long. */
const READ_PAGE = 500;

/** Messages of session `id` after `afterSeq`, oldest first, read newest page first; `undefined` when the session is gone. */
export async function readAfter(store: SessionStore, id: string, afterSeq: number): Promise<Message[] | undefined> {
  const pages: Message[][] = [];
  let before: number | undefined;
  try {
    for (;;) {
      const page = await store.readMessages(id, {
        afterSeq,
        limit: READ_PAGE,
        ...(before === undefined ? {} : { beforeSeq: before }),
      });
      pages.push(page);
      const first = page[0]?.seq;
      if (page.length < READ_PAGE || first === undefined) break;
      before = first;
    }
  } catch (error) {
    if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
  return pages.reverse().flat();
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
