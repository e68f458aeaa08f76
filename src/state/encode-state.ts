/**
 * `encodeState`: a conversation history as an opaque, versioned, provider-locked blob.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { isPreambleMessage } from '../compaction/turns.js';
import { Message } from '../message/message.js';
import { sealEnvelope } from './envelope.js';
import { serializePayload } from './payload.js';
import { resolveEncrypt, resolveStateOptions, type ResolvedStateOptions } from './resolve-options.js';
import { STATE_VERSION, type EncodeStateOptions } from './types.js';

/**
 * How many messages at the start of `messages` form the preamble, which state never stores: the
 * leading system-role messages, up to the first summary. A summary written by compaction stands for
 * dropped history, not for the caller's prompt, so it is stored (else it would be lost for good).
 */
export function leadingSystemCount(messages: readonly Message[]): number {
  let count = 0;
  while (count < messages.length && isPreambleMessage(messages[count] as Message)) count += 1;
  return count;
}

/** Validates `messages` (already messages, or message inputs) into frozen messages; throws `INVALID_MESSAGE`. */
export function toMessages(messages: readonly Message[]): readonly Message[] {
  if (!Array.isArray(messages))
    throw new InvalidInputError('INVALID_MESSAGE', 'Invalid message: expected an array of messages');
  return messages.map((message: Message) => Message.from(message));
}

/** Writes already-stored messages (no leading system messages) into a blob; throws `TOO_LARGE` past `maxBytes`. */
export function writeState(
  stored: readonly Message[],
  processedLength: number,
  options: ResolvedStateOptions,
  encrypt: boolean,
): string {
  const json = serializePayload({ v: STATE_VERSION, provider: options.provider, processedLength, messages: stored });
  const blob = sealEnvelope(json, options.ring, encrypt);
  // Refused here, at save time, because decodeState would silently drop a blob this large.
  if (blob.length > options.maxBytes) {
    throw new InvalidInputError('TOO_LARGE', `State blob is ${blob.length} bytes; the limit is ${options.maxBytes}`, {
      details: { size: blob.length, limit: options.maxBytes },
    });
  }
  return blob;
}

/**
 * Encodes a history as an opaque state string for `options.provider`.
 *
 * Leading system-role messages (the preamble, context messages included) are not stored: callers
 * supply them fresh on every call (goaitools). A compaction summary ends the preamble: it is
 * conversation, not prompt, and is stored with everything after it. System messages after the
 * first non-system message are conversation events and are stored. `processedLength` counts stored messages. Without a key
 * the blob is readable by anyone who has it; with a key it is HMAC-signed, and with `encrypt` also
 * AES-256-GCM encrypted. Throws `INVALID_ARGUMENT` for bad options (unknown provider, weak key,
 * `encrypt` without a key, `processedLength` out of range), `INVALID_MESSAGE` for an invalid
 * message and `TOO_LARGE` when the blob would exceed `maxBytes`.
 */
export function encodeState(messages: readonly Message[], options: EncodeStateOptions): string {
  const resolved = resolveStateOptions(options);
  const encrypt = resolveEncrypt(options.encrypt, resolved.ring);
  const all = toMessages(messages);
  const stored = all.slice(leadingSystemCount(all));
  const processedLength = options.processedLength ?? stored.length;
  if (!Number.isSafeInteger(processedLength) || processedLength < 0 || processedLength > stored.length) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `processedLength must be an integer from 0 to ${stored.length} (the number of stored messages, leading system messages excluded)`,
    );
  }
  return writeState(stored, processedLength, resolved, encrypt);
}
