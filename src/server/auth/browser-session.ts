/**
 * Browser sessions: a key, presented once to `POST /auth/session`, becomes an HttpOnly,
 * SameSite=Strict cookie that authenticates later requests as that key, so the web session browser
 * never keeps a key where page scripts can read it. The cookie is a signed, expiring token — the
 * key's id, its hash and the expiry under an HMAC — so any server holding the same secret accepts
 * it, and removing (or replacing) the key from the key file ends every browser session it opened.
 * @module
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';

/** The cookie's name. */
export const SESSION_COOKIE = 'chatstate_session';

/** How long a browser session lasts unless asked otherwise: 12 hours. */
export const DEFAULT_SESSION_SECONDS = 12 * 60 * 60;

/** The longest browser session a login may ask for: 30 days. */
export const MAX_SESSION_SECONDS = 30 * 24 * 60 * 60;

/** Shortest secret accepted (the state key's rule). */
const MIN_SECRET_LENGTH = 16;

const VERSION = 'v1';

/** What a valid token names: the key and when the session ends. */
export interface SessionToken {
  readonly keyId: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
}

/** Signs and checks browser-session tokens with one secret. */
export class SessionSigner {
  private readonly macKey: Buffer;

  /**
   * `secret` is shared by every server that must accept the same cookies; without one, a random
   * secret of this process (its cookies end when it restarts and no other server accepts them).
   */
  constructor(secret?: string) {
    if (secret !== undefined && secret.length < MIN_SECRET_LENGTH)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `The browser session secret must have ${MIN_SECRET_LENGTH} characters or more`,
      );
    const material = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
    // A subkey of its own: the same secret may sign other things without a token ever passing for them.
    this.macKey = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'chatstate browser session v1', 32));
  }

  /** The token of a session of key `keyId` (whose stored hash is `keyHash`) ending at `expiresAt`. */
  sign(keyId: string, keyHash: string, expiresAt: number): string {
    return `${VERSION}.${expiresAt}.${this.mac(keyId, keyHash, expiresAt)}.${keyId}`;
  }

  /**
   * What `token` names when its signature holds for the key's current hash (`hashOf(keyId)`) and
   * it has not expired at `now` (seconds); `undefined` otherwise — whatever is wrong with it.
   */
  verify(token: string, hashOf: (keyId: string) => string | undefined, now: number): SessionToken | undefined {
    // Key ids may hold dots: the id is everything after the third one.
    const match = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})\.(.{1,64})$/.exec(token);
    if (match === null) return undefined;
    const [, expiry, mac, keyId] = match as unknown as [string, string, string, string];
    const expiresAt = Number(expiry);
    const keyHash = hashOf(keyId);
    if (keyHash === undefined || expiresAt <= now) return undefined;
    const expected = Buffer.from(this.mac(keyId, keyHash, expiresAt), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected) ? { keyId, expiresAt } : undefined;
  }

  private mac(keyId: string, keyHash: string, expiresAt: number): string {
    return createHmac('sha256', this.macKey)
      .update(`${VERSION}\n${expiresAt}\n${keyId}\n${keyHash}`)
      .digest('base64url');
  }
}
