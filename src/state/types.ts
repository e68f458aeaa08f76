/**
 * The types and constants of opaque state (goaitools' ChatWithState): options, the decoded value
 * and the reasons a blob is rejected.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ProviderName } from '../message/schema.js';

/** Version of the state blob format; it travels in the blob's prefix (`cs1.`) and payload (`v`). */
export const STATE_VERSION = 1;

/** Largest blob `decodeState` reads and `encodeState` writes, in bytes: 16 MiB. */
export const DEFAULT_MAX_STATE_BYTES = 16 * 1024 * 1024;

/** A secret: a string of at least 16 characters or at least 16 random bytes. */
export type StateSecret = string | Uint8Array;

/**
 * Several secrets by key id, for rotation: blobs are signed with `current`, and any key still in
 * `keys` decodes the blobs it signed. Key ids travel in the blob in clear text (they are not secret)
 * and match `^[A-Za-z0-9_-]{1,64}$`.
 */
export interface StateKeyRing {
  /** The key id new blobs are signed (and encrypted) with. */
  readonly current: string;
  /** Secrets by key id. */
  readonly keys: Readonly<Record<string, StateSecret>>;
}

/** A single secret (key id `default`) or a key ring. */
export type StateKey = StateSecret | StateKeyRing;

/** Options shared by `encodeState`, `decodeState` and `appendToState`. */
export interface StateOptions {
  /** The provider the state is locked to: a blob made for another provider is rejected. */
  readonly provider: ProviderName;
  /**
   * Signs blobs with HMAC-SHA256 (and lets them be encrypted). When given to `decodeState`, an
   * unsigned blob is rejected: it could have been written by anyone.
   */
  readonly key?: StateKey;
  /** Largest blob accepted, in bytes. @default DEFAULT_MAX_STATE_BYTES (16 MiB) */
  readonly maxBytes?: number;
}

/** Options of `encodeState`. */
export interface EncodeStateOptions extends StateOptions {
  /** Encrypt the payload with AES-256-GCM (needs `key`). @default false */
  readonly encrypt?: boolean;
  /**
   * How many of the stored messages (leading system messages already removed) the model has seen;
   * the rest were appended without a model call. @default all stored messages
   */
  readonly processedLength?: number;
}

/** Options of `decodeState`. */
export type DecodeStateOptions = StateOptions;

/** Options of `appendToState`. */
export interface AppendStateOptions extends StateOptions {
  /** Encrypt the new blob. @default true when the input blob was encrypted, otherwise false */
  readonly encrypt?: boolean;
}

/** Why a blob was rejected. */
export type StateRejectionReason =
  /** Not a state blob (or too large, or the options were invalid). */
  | 'invalid'
  /** Written by another version of the format. */
  | 'version'
  /** Written for another provider. */
  | 'provider'
  /** Authentic (or unsigned) but its content does not parse or validate. */
  | 'corrupt'
  /** Missing, wrong or unverifiable signature; unknown key id; failed decryption. */
  | 'signature';

/** A rejected blob: the reason and a human-readable explanation (never containing secrets). */
export interface StateRejection {
  readonly reason: StateRejectionReason;
  readonly message: string;
}

/** What `decodeState` returns. On rejection `messages` is empty and `processedLength` is 0. */
export interface DecodedState {
  /** The stored messages, oldest first, each validated and frozen. */
  readonly messages: readonly Message[];
  /** How many of `messages` the model has already seen. */
  readonly processedLength: number;
  /** Present when the blob could not be used; the history then starts empty. */
  readonly rejected?: StateRejection;
}

/** What `appendToState` returns. */
export interface AppendedState {
  /** The new blob. */
  readonly state: string;
  /** Present when the input blob was rejected and the new state started from an empty history. */
  readonly rejected?: StateRejection;
  /**
   * Appended messages that were not stored because they would have been leading system messages
   * (only when the history was empty and they start with system-role messages; see `encodeState`).
   */
  readonly dropped: number;
}
