/**
 * The check of `readMessagesAt`'s refs, once in the core: drivers get valid session ids and
 * sequence numbers only, and never more than `MAX_READ_AT` of them.
 * @module
 */
import { MAX_SEQ } from '../bounds.js';
import { ChatstateError, InvalidInputError } from '../errors.js';
import { assertValidId } from '../ids.js';
import type { Message } from '../message/message.js';
import type { MessageRange, MessageRef } from './session-store-types.js';

/** Most refs one `readMessagesAt` call reads. */
export const MAX_READ_AT = 1000;

/** `refs` as plain `{ sessionId, seq }` objects; `INVALID_ARGUMENT` (or `INVALID_ID`) for anything else. */
export function checkMessageRefs(refs: unknown): MessageRef[] {
  if (!Array.isArray(refs))
    throw new InvalidInputError('INVALID_ARGUMENT', 'readMessagesAt needs an array of { sessionId, seq }');
  if (refs.length > MAX_READ_AT)
    throw new InvalidInputError('INVALID_ARGUMENT', `readMessagesAt reads at most ${MAX_READ_AT} refs per call`);
  return refs.map((ref: unknown) => {
    if (typeof ref !== 'object' || ref === null)
      throw new InvalidInputError('INVALID_ARGUMENT', 'each ref of readMessagesAt must be { sessionId, seq }');
    const { sessionId, seq } = ref as { sessionId?: unknown; seq?: unknown };
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1 || seq > MAX_SEQ)
      throw new InvalidInputError('INVALID_ARGUMENT', `a ref's seq must be a positive integer of at most ${MAX_SEQ}`);
    return { sessionId: assertValidId(sessionId, 'session id'), seq };
  });
}

/**
 * The messages at `refs` read one `readMessages` call each (for a store with no batch read):
 * `undefined` where the session is missing or has no message at that seq.
 */
export async function readEachAt(
  refs: unknown,
  readMessages: (id: string, range: MessageRange) => Promise<Message[]>,
): Promise<Array<Message | undefined>> {
  return Promise.all(
    checkMessageRefs(refs).map(async ({ sessionId, seq }) => {
      try {
        const [message] = await readMessages(sessionId, { afterSeq: seq - 1, beforeSeq: seq + 1, limit: 1 });
        return message;
      } catch (error) {
        if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
        throw error;
      }
    }),
  );
}
