/**
 * `decodeState`: the history inside a blob, or an empty history and the reason it was rejected.
 * It never throws at the caller: bad state costs the conversation, never the request.
 * @module
 */
import { ChatstateError, errorMessage } from '../errors.js';
import type { Message } from '../message/message.js';
import { openEnvelope } from './envelope.js';
import { parsePayload } from './payload.js';
import { resolveStateOptions, type ResolvedStateOptions } from './resolve-options.js';
import type { DecodeStateOptions, DecodedState, StateRejection, StateRejectionReason } from './types.js';

const EMPTY: readonly Message[] = Object.freeze([]);
const FRESH: DecodedState = Object.freeze({ messages: EMPTY, processedLength: 0 });

function rejected(reason: StateRejectionReason, message: string): DecodedState {
  const rejection: StateRejection = Object.freeze({ reason, message });
  return Object.freeze({ messages: EMPTY, processedLength: 0, rejected: rejection });
}

/** Decodes with options already validated (shared with `appendToState`). Never throws. */
export function decodeResolved(blob: unknown, options: ResolvedStateOptions): DecodedState {
  try {
    if (blob === undefined || blob === null || blob === '') return FRESH;
    if (typeof blob !== 'string') return rejected('invalid', `State must be a string, not ${typeof blob}`);
    // Checked before any other work, so a huge input costs nothing but this comparison. A valid blob
    // is ASCII, so its length in characters is its size in bytes.
    if (blob.length > options.maxBytes) {
      return rejected('invalid', `State blob is ${blob.length} bytes; the limit is ${options.maxBytes}`);
    }
    // Surrounding whitespace (a trailing newline from a file) is not part of what was signed.
    const opened = openEnvelope(blob.trim(), options.ring);
    if (!opened.ok) return rejected(opened.rejection.reason, opened.rejection.message);
    // Only a keyed blob got here through a verified MAC (a plain one is rejected when a key is set).
    const payload = parsePayload(opened.json, options.provider, options.ring !== undefined);
    if (!payload.ok) return rejected(payload.rejection.reason, payload.rejection.message);
    return Object.freeze({ messages: payload.messages, processedLength: payload.processedLength });
  } catch (error) {
    // Nothing above is expected to throw; if something does (e.g. a stack overflow on absurd
    // nesting), the state is unusable, which is what a rejection says.
    return rejected('corrupt', `State could not be decoded: ${errorMessage(error)}`);
  }
}

/**
 * Decodes a blob made by `encodeState` for the same provider (and key, if any). Never throws:
 * - `undefined`, `null` or `''` is a fresh conversation: no messages and no rejection;
 * - anything unusable gives `{ messages: [], processedLength: 0, rejected: { reason, message } }`:
 *   `invalid` (not a blob, larger than `maxBytes`, or invalid options), `version`, `provider`,
 *   `corrupt` (content does not parse or validate) or `signature` (unsigned while a key is
 *   configured, signed but no key given, wrong MAC, unknown key id, failed decryption).
 * With a key, the MAC is checked (in constant time) before anything in the blob is parsed, so the
 * messages returned are always exactly the ones that were signed.
 */
export function decodeState(blob: string | undefined | null, options: DecodeStateOptions): DecodedState {
  let resolved: ResolvedStateOptions;
  try {
    resolved = resolveStateOptions(options);
  } catch (error) {
    const message = ChatstateError.isInstance(error) ? error.message : 'unreadable options';
    return rejected('invalid', `Invalid decodeState options: ${message}`);
  }
  return decodeResolved(blob, resolved);
}
