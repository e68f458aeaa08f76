/**
 * Encryption at rest: AES-256-GCM per record, with the key id stored beside each record so keys
 * can rotate (old records stay readable while their key is in the ring; new ones use the current
 * key). The associated data binds a ciphertext to its session and record, so a record cannot be
 * moved to another session or position unnoticed.
 * @module
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { DataError, InvalidInputError } from '../errors.js';
import type { KeyHolding } from './key-check.js';
import { resolveKeyRing } from '../state/key-ring.js';
import type { StateKey } from '../state/types.js';

/** A key or a key ring for encryption at rest (the same shapes as state keys). */
export type AtRestKey = StateKey;

/** Seals and opens record bodies; the identity when no key is configured. */
export interface RecordCipher {
  readonly encrypted: boolean;
  /** The keys this cipher holds, by fingerprint: what a session's key check is compared with. */
  readonly holding: KeyHolding;
  seal(plain: string, aad: string): string;
  open(data: string, aad: string): string;
}

const PREFIX = 'e1.';
/** The prefix of a record sealed with a user's own key (`user-keyring.ts`): `u1.<slot>.<gen>.<iv>.<body>.<tag>`. */
export const USER_PREFIX = 'u1.';
const STORE_INFO = Buffer.from('chatstate.store/v1/encryption', 'utf8');
const CHECK_INPUT = Buffer.from('chatstate.store/v1/key-check', 'utf8');

/**
 * A key's fingerprint: a MAC of a constant under the record key, 96 bits. It tells two secrets
 * apart without revealing either (a MAC output says nothing about its key).
 */
export function fingerprint(key: Buffer): string {
  return createHmac('sha256', key).update(CHECK_INPUT).digest('base64url').slice(0, 16);
}

const NO_KEYS: KeyHolding = Object.freeze({ current: undefined, fingerprints: new Map<string, string>() });

/** True when `data` is an encrypted envelope (under the store's key or a user's). */
export function isSealed(data: string): boolean {
  return data.startsWith(PREFIX) || data.startsWith(USER_PREFIX);
}

/** `iv.body.tag` of `plain` under `key` (AES-256-GCM), the associated data bound to `label` (the key's name). */
export function sealWith(key: Buffer, label: string, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${label}\n${aad}`, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/** Opens the `iv`, `body` and `tag` of an envelope `sealWith` made; `CORRUPT` when it does not authenticate. */
export function openWith(
  key: Buffer,
  label: string,
  parts: readonly (string | undefined)[],
  aad: string,
  storeName: string,
): string {
  const [iv, body, tag] = parts;
  if (iv === undefined || body === undefined || tag === undefined || parts.length !== 3)
    throw new DataError('CORRUPT', `${storeName}: a record's envelope is malformed`);
  const tagBytes = Buffer.from(tag, 'base64url');
  // A short tag would let a forger try fewer guesses: only full 16-byte tags are accepted.
  if (tagBytes.length !== 16)
    throw new DataError('CORRUPT', `${storeName}: a record's authentication tag is malformed`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${label}\n${aad}`, 'utf8'));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new DataError('CORRUPT', `${storeName}: a record failed authentication (tampered, or moved from elsewhere)`, {
      cause: error,
    });
  }
}

/** `WRONG_KEY`: a record is sealed with a user's key, and this store has no user key store to find it in. */
export function noUserKeys(storeName: string): InvalidInputError {
  return new InvalidInputError(
    'WRONG_KEY',
    `${storeName}: a record is sealed with a per-user key, and this store was opened without a user key store (userKeys)`,
  );
}

/** The subkey records are sealed with, for each key of the ring `key` (by key id), and the current key id. */
export function recordKeys(key: AtRestKey): { current: string; keys: Map<string, Buffer> } {
  const ring = resolveKeyRing(key);
  // A subkey of its own: the same secret used for state blobs never encrypts records with the same key.
  const keys = new Map(
    [...ring.keys].map(([id, derived]) => [
      id,
      Buffer.from(hkdfSync('sha256', derived.encryption, Buffer.alloc(0), STORE_INFO, 32)),
    ]),
  );
  return { current: ring.current, keys };
}

/** The cipher for `key`; without a key, records are stored as plain JSON. */
export function recordCipher(key: AtRestKey | undefined, storeName: string): RecordCipher {
  if (key === undefined) {
    return {
      encrypted: false,
      holding: NO_KEYS,
      seal: (plain) => plain,
      open(data) {
        if (isSealed(data)) {
          throw new DataError(
            'CORRUPT',
            `${storeName}: a record is encrypted, but the store was opened without an encryption key`,
          );
        }
        return data;
      },
    };
  }
  const { current, keys } = recordKeys(key);
  const currentKey = keys.get(current) as Buffer;
  const holding: KeyHolding = {
    current,
    fingerprints: new Map([...keys].map(([id, secret]) => [id, fingerprint(secret)])),
  };
  return {
    encrypted: true,
    holding,
    seal: (plain, aad) => `${PREFIX}${current}.${sealWith(currentKey, current, plain, aad)}`,
    open(data, aad) {
      // Records written before encryption was enabled stay readable; they are sealed when rewritten.
      if (!isSealed(data)) return data;
      if (data.startsWith(USER_PREFIX)) throw noUserKeys(storeName);
      const [keyId, ...parts] = data.slice(PREFIX.length).split('.');
      const secret = keyId === undefined ? undefined : keys.get(keyId);
      if (secret === undefined) {
        throw new DataError(
          'CORRUPT',
          `${storeName}: a record is encrypted with key ${JSON.stringify(keyId ?? '')}, which is not in the key ring`,
        );
      }
      return openWith(secret, keyId as string, parts, aad, storeName);
    },
  };
}
