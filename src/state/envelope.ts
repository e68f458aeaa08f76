/**
 * The blob envelope: a printable string around the JSON payload, plain, signed or encrypted.
 *
 * ```
 * cs1.p.<payload>                          plain (no key): base64url JSON
 * cs1.s.<keyId>.<payload>.<mac>            signed: HMAC-SHA256 over everything before the last dot
 * cs1.e.<keyId>.<iv>.<ciphertext>.<tag>.<mac>
 *                                          encrypted: AES-256-GCM (header as AAD), then signed
 * ```
 *
 * Every segment is base64url without padding, so a blob is safe in URLs, cookies and headers.
 * Opening a keyed blob checks its MAC (timing-safe) before anything is decoded or parsed.
 * @module
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KEY_ID_PATTERN, type DerivedKeys, type ResolvedKeyRing } from './key-ring.js';
import { STATE_VERSION, type StateRejection, type StateRejectionReason } from './types.js';

/** The prefix of every blob of this format version. */
export const BLOB_PREFIX = `cs${STATE_VERSION}.`;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const VERSIONED = /^cs(\d{1,9})\./;

/** The three envelope modes. */
export type EnvelopeMode = 'plain' | 'signed' | 'encrypted';

/** The JSON text inside an envelope, or why it could not be opened. */
export type OpenedEnvelope =
  { readonly ok: true; readonly json: string } | { readonly ok: false; readonly rejection: StateRejection };

const MODE_TAGS: Readonly<Record<EnvelopeMode, string>> = { plain: 'p', signed: 's', encrypted: 'e' };

function reject(reason: StateRejectionReason, message: string): OpenedEnvelope {
  return { ok: false, rejection: { reason, message } };
}

function mac(keys: DerivedKeys, signed: string): string {
  return createHmac('sha256', keys.mac).update(signed, 'ascii').digest('base64url');
}

/** Wraps `json` in an envelope: plain without `ring`, otherwise signed with the ring's current key, and encrypted if asked. */
export function sealEnvelope(json: string, ring: ResolvedKeyRing | undefined, encrypt: boolean): string {
  const payload = Buffer.from(json, 'utf8');
  if (ring === undefined) return `${BLOB_PREFIX}${MODE_TAGS.plain}.${payload.toString('base64url')}`;
  const keys = ring.keys.get(ring.current) as DerivedKeys;
  let unsigned: string;
  if (encrypt) {
    const header = `${BLOB_PREFIX}${MODE_TAGS.encrypted}.${ring.current}`;
    // A fresh random IV per blob: GCM is broken by IV reuse under one key, and 2^-96 collisions are negligible.
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.encryption, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(header, 'ascii'));
    const ciphertext = Buffer.concat([cipher.update(payload), cipher.final()]);
    const tag = cipher.getAuthTag();
    unsigned = `${header}.${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
  } else {
    unsigned = `${BLOB_PREFIX}${MODE_TAGS.signed}.${ring.current}.${payload.toString('base64url')}`;
  }
  return `${unsigned}.${mac(keys, unsigned)}`;
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    // Fatal decoding: invalid UTF-8 is corruption, not something to paper over with U+FFFD.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function textOf(payload: Buffer): OpenedEnvelope {
  const json = decodeUtf8(payload);
  return json === undefined ? reject('corrupt', 'State payload is not valid UTF-8') : { ok: true, json };
}

/**
 * Checks the MAC of a keyed blob and returns the key that signed it. The MAC is compared as its
 * canonical base64url text, so a blob has exactly one valid spelling (no malleable padding bits).
 */
function verify(blob: string, ring: ResolvedKeyRing, keyId: string): DerivedKeys | StateRejection {
  const keys = ring.keys.get(keyId);
  if (keys === undefined)
    return {
      reason: 'signature',
      message: `State was signed with key id ${JSON.stringify(keyId)}, which is not in the key ring`,
    };
  const cut = blob.lastIndexOf('.');
  const expected = Buffer.from(mac(keys, blob.slice(0, cut)), 'ascii');
  const actual = Buffer.from(blob.slice(cut + 1), 'ascii');
  // Lengths are public (a MAC is always 43 characters); only the content comparison must be constant-time.
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return {
      reason: 'signature',
      message: 'State signature does not match: the blob was tampered with or signed with another key',
    };
  }
  return keys;
}

function decrypt(
  header: string,
  keys: DerivedKeys,
  ivText: string,
  ciphertextText: string,
  tagText: string,
): Buffer | undefined {
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.encryption, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(header, 'ascii'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]);
  } catch {
    return undefined;
  }
}

/**
 * Opens an envelope. With `ring`, only signed or encrypted blobs are accepted, and only after their
 * MAC verifies; without it, only plain blobs are (a keyed blob cannot be checked, so it is not read).
 */
export function openEnvelope(blob: string, ring: ResolvedKeyRing | undefined): OpenedEnvelope {
  const versioned = VERSIONED.exec(blob);
  if (versioned === null)
    return reject('invalid', `Not a chatstate state blob (expected the prefix ${JSON.stringify(BLOB_PREFIX)})`);
  if (Number(versioned[1]) !== STATE_VERSION) {
    return reject(
      'version',
      `State blob has format version ${versioned[1]}; this version of chatstate reads ${STATE_VERSION}`,
    );
  }
  const segments = blob.split('.');
  const tag = segments[1];
  const mode: EnvelopeMode | undefined =
    tag === 'p' ? 'plain' : tag === 's' ? 'signed' : tag === 'e' ? 'encrypted' : undefined;
  if (mode === undefined) return reject('invalid', 'State blob has an unknown mode');
  const expectedSegments = mode === 'plain' ? 3 : mode === 'signed' ? 5 : 7;
  if (segments.length !== expectedSegments) return reject('invalid', 'State blob has the wrong number of segments');
  const [, , ...rest] = segments;
  if (mode !== 'plain' && !KEY_ID_PATTERN.test(rest[0] ?? ''))
    return reject('invalid', 'State blob has a malformed key id');
  const encoded = mode === 'plain' ? rest : rest.slice(1);
  if (!encoded.every((segment) => BASE64URL.test(segment)))
    return reject('invalid', 'State blob has a segment that is not base64url');
  if (ring !== undefined && mode === 'plain') {
    return reject('signature', 'State blob is unsigned but a key is configured: an unsigned blob is never trusted');
  }
  if (ring === undefined && mode !== 'plain') {
    return reject('signature', 'State blob is signed; pass its key to decode it');
  }

  switch (mode) {
    case 'plain':
      return textOf(Buffer.from(rest[0] as string, 'base64url'));
    case 'signed': {
      const keys = verify(blob, ring as ResolvedKeyRing, rest[0] as string);
      if (!('mac' in keys)) return { ok: false, rejection: keys };
      return textOf(Buffer.from(rest[1] as string, 'base64url'));
    }
    case 'encrypted': {
      const keyId = rest[0] as string;
      const keys = verify(blob, ring as ResolvedKeyRing, keyId);
      if (!('mac' in keys)) return { ok: false, rejection: keys };
      const header = `${BLOB_PREFIX}${MODE_TAGS.encrypted}.${keyId}`;
      const plain = decrypt(header, keys, rest[1] as string, rest[2] as string, rest[3] as string);
      return plain === undefined ? reject('signature', 'State blob could not be decrypted') : textOf(plain);
    }
    default: {
      const unreachable: never = mode;
      return unreachable;
    }
  }
}

/** True when `blob` looks like an encrypted blob (used to keep encryption on when a state is rewritten). */
export function isEncryptedBlob(blob: unknown): boolean {
  return typeof blob === 'string' && blob.trim().startsWith(`${BLOB_PREFIX}${MODE_TAGS.encrypted}.`);
}
