/**
 * One page of a session's messages by sequence number, newest page first — what `history` of a
 * handle and of a working memory both give: the newest `limit` before a cursor, oldest first, and
 * the cursor of the next older page. A session that does not exist is an empty page.
 * @module
 */
import { ChatstateError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { SessionStore } from '../store/session-store-types.js';

/** A page of messages and the cursor of the next older one (absent at the first message). */
export interface MessagePage {
  readonly messages: readonly Message[];
  readonly nextBefore?: number;
}

/** The newest `limit` messages of `sessionId` with `seq` below `before` (all of them without it). */
export async function messagePage(
  store: SessionStore,
  sessionId: string,
  limit: number,
  before: number | undefined,
): Promise<MessagePage> {
  let messages: Message[];
  try {
    // One more than asked: whether it comes back says if an older page exists.
    messages = await store.readMessages(sessionId, {
      limit: limit + 1,
      ...(before === undefined ? {} : { beforeSeq: before }),
    });
  } catch (error) {
    if (!ChatstateError.hasCode(error, 'NOT_FOUND')) throw error;
    messages = [];
  }
  const older = messages.length > limit;
  const page = older ? messages.slice(1) : messages;
  const nextBefore = older ? page[0]?.seq : undefined;
  return { messages: page, ...(nextBefore === undefined ? {} : { nextBefore }) };
}
