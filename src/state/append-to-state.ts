/**
 * `appendToState` (goaitools' AppendToState): record context or events in a state without a
 * model call.
 * @module
 */
import type { Message } from '../message/message.js';
import { decodeResolved } from './decode-state.js';
import { leadingSystemCount, toMessages, writeState } from './encode-state.js';
import { isEncryptedBlob } from './envelope.js';
import { resolveEncrypt, resolveStateOptions } from './resolve-options.js';
import type { AppendStateOptions, AppendedState } from './types.js';

/**
 * Appends `messages` to the history in `blob` and returns the new blob. `processedLength` is
 * unchanged: the model has not seen the new messages yet.
 *
 * A bad input blob never makes this fail: it is decoded as `decodeState` would, and when rejected
 * the new state starts from an empty history and `rejected` says why (so the caller can log it).
 * As in `encodeState`, leading system-role messages are not stored: appending a system or context
 * message to an empty history drops it and counts it in `dropped` (record such an event as a user
 * message instead, as goaitools' UpdateStateAfterEvent does). Throws only for the caller's own
 * mistakes: invalid options (`INVALID_ARGUMENT`), invalid messages (`INVALID_MESSAGE`) or a result
 * larger than `maxBytes` (`TOO_LARGE`).
 */
export function appendToState(
  blob: string | undefined | null,
  messages: readonly Message[],
  options: AppendStateOptions,
): AppendedState {
  // Options are validated first so a misconfigured key throws instead of discarding the state.
  const resolved = resolveStateOptions(options);
  const encrypt = resolveEncrypt(
    options.encrypt ?? (resolved.ring !== undefined && isEncryptedBlob(blob)),
    resolved.ring,
  );
  const added = toMessages(messages);
  const decoded = decodeResolved(blob, resolved);
  const combined = [...decoded.messages, ...added];
  const leading = leadingSystemCount(combined);
  // Only a crafted unsigned blob can start with system messages; those were never "seen" as state.
  const processedLength = Math.max(0, decoded.processedLength - Math.min(leading, decoded.messages.length));
  const state = writeState(combined.slice(leading), processedLength, resolved, encrypt);
  const dropped = Math.max(0, leading - decoded.messages.length);
  return decoded.rejected === undefined ? { state, dropped } : { state, rejected: decoded.rejected, dropped };
}
