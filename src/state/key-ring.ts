/**
 * Key handling for signed and encrypted state: validation of the caller's secrets, key rings for
 * rotation, and HKDF derivation of separate MAC and encryption subkeys.
 * @module
 */
import { hkdfSync } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { STATE_VERSION, type StateKey, type StateKeyRing, type StateSecret } from './types.js';

/** Key ids travel in the blob between dots, so they cannot contain one. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The key id a single (non-ring) secret gets. To rotate away from it, keep it under this id in a ring. */
export const DEFAULT_KEY_ID = 'default';

/** Shortest secret accepted: shorter ones can be brute-forced offline from any blob. */
export const MIN_SECRET_LENGTH = 16;

/** The two subkeys derived from one secret. */
export interface DerivedKeys {
  /** HMAC-SHA256 key. */
  readonly mac: Buffer;
  /** AES-256-GCM key. */
  readonly encryption: Buffer;
}

/** A validated key ring: the current key id and every secret's derived keys. */
export interface ResolvedKeyRing {
  readonly current: string;
  readonly keys: ReadonlyMap<string, DerivedKeys>;
}

// Fixed salt and per-purpose info: the MAC key and the encryption key are independent even though
// they come from one secret, and a future format version derives keys of its own.
const SALT = Buffer.from('chatstate.state', 'utf8');
const MAC_INFO = Buffer.from(`cs${STATE_VERSION}/mac`, 'utf8');
const ENCRYPTION_INFO = Buffer.from(`cs${STATE_VERSION}/encryption`, 'utf8');

function invalidKey(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Invalid state key: ${message}`);
}

function secretBytes(secret: unknown, keyId: string): Buffer {
  if (typeof secret === 'string') {
    // Counted in code points: a secret's strength comes from the characters the caller chose.
    if ([...secret].length < MIN_SECRET_LENGTH) {
      throw invalidKey(`key ${JSON.stringify(keyId)} is shorter than ${MIN_SECRET_LENGTH} characters`);
    }
    return Buffer.from(secret, 'utf8');
  }
  if (secret instanceof Uint8Array) {
    if (secret.byteLength < MIN_SECRET_LENGTH) {
      throw invalidKey(`key ${JSON.stringify(keyId)} is shorter than ${MIN_SECRET_LENGTH} bytes`);
    }
    // A copy, so a caller that later zeroes or reuses its buffer cannot change our keys.
    return Buffer.from(secret);
  }
  throw invalidKey(`key ${JSON.stringify(keyId)} must be a string or a Uint8Array`);
}

/** Derives the MAC and encryption subkeys of one secret with HKDF-SHA256. */
export function deriveKeys(secret: Buffer): DerivedKeys {
  return {
    mac: Buffer.from(hkdfSync('sha256', secret, SALT, MAC_INFO, 32)),
    encryption: Buffer.from(hkdfSync('sha256', secret, SALT, ENCRYPTION_INFO, 32)),
  };
}

function isKeyRing(key: unknown): key is StateKeyRing {
  return typeof key === 'object' && key !== null && !(key instanceof Uint8Array);
}

/** Validates `key` (a secret or a key ring) and derives its subkeys; throws `INVALID_ARGUMENT` on a weak or malformed key. */
export function resolveKeyRing(key: StateKey): ResolvedKeyRing {
  if (!isKeyRing(key)) {
    return {
      current: DEFAULT_KEY_ID,
      keys: new Map([[DEFAULT_KEY_ID, deriveKeys(secretBytes(key as StateSecret, DEFAULT_KEY_ID))]]),
    };
  }
  const { current, keys } = key;
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys))
    throw invalidKey('a key ring needs a `keys` object');
  const resolved = new Map<string, DerivedKeys>();
  // Own enumerable keys only: an inherited `__proto__` or `constructor` is never a key id.
  for (const keyId of Object.keys(keys)) {
    if (!KEY_ID_PATTERN.test(keyId))
      throw invalidKey(`key id ${JSON.stringify(keyId.slice(0, 80))} must match ${KEY_ID_PATTERN.source}`);
    resolved.set(keyId, deriveKeys(secretBytes(keys[keyId], keyId)));
  }
  if (typeof current !== 'string' || !resolved.has(current)) {
    throw invalidKey(`the current key id ${JSON.stringify(String(current).slice(0, 80))} is not in the ring`);
  }
  return { current, keys: resolved };
}
