/**
 * Opaque conversation state (goaitools' ChatWithState): a history as a versioned,
 * provider-locked string, optionally HMAC-signed and AES-256-GCM encrypted, that a caller can keep
 * anywhere (a cookie, a column, a client) and hand back on the next turn.
 * @module
 */
export { encodeState } from './encode-state.js';
export { decodeState } from './decode-state.js';
export { appendToState } from './append-to-state.js';
export { DEFAULT_KEY_ID, KEY_ID_PATTERN, MIN_SECRET_LENGTH } from './key-ring.js';
export { DEFAULT_MAX_STATE_BYTES, STATE_VERSION } from './types.js';
export type {
  AppendStateOptions,
  AppendedState,
  DecodeStateOptions,
  DecodedState,
  EncodeStateOptions,
  StateKey,
  StateKeyRing,
  StateOptions,
  StateRejection,
  StateRejectionReason,
  StateSecret,
} from './types.js';
