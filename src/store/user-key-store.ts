/**
 * `UserKeyStore`: where per-user encryption keys live (`SessionStoreOptions.userKeys`), apart from
 * the data they seal. Destroying a user's key there makes every copy of their records unreadable —
 * backups of the data store included — which deleting the records alone cannot do (crypto-shredding).
 *
 * A key store keeps opaque strings under opaque slots: the core names slots (a keyed hash of the
 * user, never the user id), makes the keys (32 random bytes) and wraps them with the store's own
 * key before they reach `create`, so a copy of the key store alone opens nothing either.
 * `userKeyDirectory` (`chatstate/stores`) is the built-in one: a directory of one file per user.
 * @module
 */

/** A durable map of slot → wrapped user key, kept apart from the data store. */
export interface UserKeyStore {
  /** Names the key store in error messages. */
  readonly name: string;
  /** The wrapped key stored under `slot`; `undefined` when there is none (never made, or destroyed). */
  get(slot: string): Promise<string | undefined>;
  /**
   * Stores `wrapped` under `slot` unless a key is there already, durably before it resolves, and
   * returns the key stored: of two concurrent creators, both get the first one's.
   */
  create(slot: string, wrapped: string): Promise<string>;
  /** Removes the key of `slot` durably (no copy of it left in the key store); true when there was one. */
  destroy(slot: string): Promise<boolean>;
}

/** A slot as the core names them: 22 base64url characters (a keyed hash), safe as a file name or key. */
export const SLOT_PATTERN = /^[A-Za-z0-9_-]{22}$/;
