/**
 * Per-user keys (`SessionStoreOptions.userKeys`): which cipher seals a user's records and which
 * opens a set of records. A user's records are sealed with a key of their own (32 random bytes,
 * wrapped with the store's key in a `UserKeyStore`); records of no user keep the store's key.
 *
 * An envelope names its key without naming its owner: `u1.<slot>.<gen>.<iv>.<body>.<tag>`, where
 * the slot is a keyed hash of the user (HMAC under a subkey of the store's key: a copy of the
 * data alone does not tell whose key a record needs) and the generation tells one key of a slot
 * from a later one (a user forgotten, then back). Its key id in a session's key check is
 * `u.<slot>.<gen>`. Reading never needs the owner: the keys named by the records are looked up.
 * @module
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ChatstateError, DataError, InvalidInputError, UnavailableError } from '../errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import {
  USER_PREFIX,
  fingerprint,
  isSealed,
  openWith,
  recordKeys,
  sealWith,
  type AtRestKey,
  type RecordCipher,
} from './at-rest.js';
import { isUserKeyId } from './key-check.js';
import type { UserKeyStore } from './user-key-store.js';

/** A user's key, unwrapped: its key id (`u.<slot>.<gen>`), secret and fingerprint. */
interface UserKey {
  readonly label: string;
  readonly secret: Buffer;
  readonly fingerprint: string;
}

/** The ciphers of one store: which one opens given records, which one seals a user's. */
export interface StoreCiphers {
  /** The store's own cipher (its key or key ring, or none). */
  readonly base: RecordCipher;
  /** Whether users have keys of their own (`userKeys`). */
  readonly perUser: boolean;
  /** A cipher that opens `datas` and holds every key the key check `check` names. */
  forRead(check: string | undefined, datas: Iterable<string | undefined>): Promise<RecordCipher>;
  /** A cipher that seals with the key of user namespace `owner` (the store's key without one) and holds what `check` names. */
  forWrite(owner: string | undefined, check: string | undefined): Promise<RecordCipher>;
  /** Destroys every key of user namespace `owner`; returns how many there were. */
  forget(owner: string): Promise<number>;
}

const SLOT_INFO = Buffer.from('chatstate.store/v1/user-key-slot', 'utf8');
const GEN = /^[A-Za-z0-9_-]{11}$/;
/** Unwrapped keys remembered: a key of a given slot and generation never changes. */
const MAX_CACHED = 4096;

/** `WRONG_KEY`: a record needs a user's key the key store no longer has. */
function destroyed(store: string): InvalidInputError {
  return new InvalidInputError(
    'WRONG_KEY',
    `${store}: a record is sealed with its user's own key, which is not in the user key store: it was destroyed when the user was forgotten (or this is another user key store)`,
  );
}

/** The key ids (`u.<slot>.<gen>`) the records `datas` and the key check `check` need. */
function labelsOf(check: string | undefined, datas: Iterable<string | undefined>): Set<string> {
  const labels = new Set<string>();
  if (check !== undefined && check !== '') {
    for (const entry of check.split(',')) {
      const id = entry.slice(0, entry.indexOf(':'));
      if (isUserKeyId(id)) labels.add(id);
    }
  }
  for (const data of datas) {
    if (data === undefined || !data.startsWith(USER_PREFIX)) continue;
    const [slot, gen] = data.slice(USER_PREFIX.length).split('.', 2);
    labels.add(`u.${slot ?? ''}.${gen ?? ''}`);
  }
  return labels;
}

/** A cipher over `base` that also opens records of the keys `held`, and seals with `sealing` when given. */
function userCipher(
  base: RecordCipher,
  held: ReadonlyMap<string, UserKey>,
  sealing: UserKey | undefined,
  store: string,
): RecordCipher {
  const fingerprints = new Map(base.holding.fingerprints);
  for (const [label, key] of held) fingerprints.set(label, key.fingerprint);
  if (sealing !== undefined) fingerprints.set(sealing.label, sealing.fingerprint);
  return {
    encrypted: true,
    holding: { current: sealing?.label ?? base.holding.current, fingerprints, userKeys: true },
    seal:
      sealing === undefined
        ? (plain, aad) => base.seal(plain, aad)
        : (plain, aad) =>
            `${USER_PREFIX}${sealing.label.slice(2)}.${sealWith(sealing.secret, sealing.label, plain, aad)}`,
    open(data, aad) {
      if (!data.startsWith(USER_PREFIX)) return base.open(data, aad);
      const [slot, gen, ...parts] = data.slice(USER_PREFIX.length).split('.');
      const label = `u.${slot ?? ''}.${gen ?? ''}`;
      const key = held.get(label) ?? (sealing?.label === label ? sealing : undefined);
      if (key === undefined) throw destroyed(store);
      return openWith(key.secret, label, parts, aad, store);
    },
  };
}

/** The ciphers of a store with per-user keys in `keys`, wrapped and named under the store's key `key`. */
class UserKeyring implements StoreCiphers {
  readonly perUser = true;
  /** The subkey slots are named with, per key of the ring, the current one first. */
  private readonly naming: Buffer[];
  private readonly cache = new BoundedMap<string, UserKey>({ max: MAX_CACHED, renew: 'use' });

  constructor(
    readonly base: RecordCipher,
    key: AtRestKey,
    private readonly keys: UserKeyStore,
    private readonly store: string,
  ) {
    const { current, keys: ring } = recordKeys(key);
    const ordered = [current, ...[...ring.keys()].filter((id) => id !== current)];
    this.naming = ordered.map((id) =>
      Buffer.from(hkdfSync('sha256', ring.get(id) as Buffer, Buffer.alloc(0), SLOT_INFO, 32)),
    );
  }

  /** The slot of user namespace `owner` under naming key `naming`. */
  private slot(owner: string, naming: Buffer): string {
    return createHmac('sha256', naming).update(owner, 'utf8').digest('base64url').slice(0, 22);
  }

  /** Runs a call of the key store: a failure that is not a typed one is `UNAVAILABLE` (nothing was written). */
  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ChatstateError) throw error;
      throw new UnavailableError(
        `${this.store}: the user key store ${this.keys.name} failed to ${what}: ${(error as Error)?.message ?? String(error)}`,
        { store: this.keys.name, reason: 'USER_KEYS' },
        { cause: error },
      );
    }
  }

  /** The key a wrapped key of `slot` holds; `CORRUPT` when it is damaged (this user's only). */
  private unwrap(slot: string, wrapped: string): UserKey {
    const damaged = (why: string, cause?: unknown): DataError =>
      new DataError('CORRUPT', `${this.store}: the user key in slot ${slot} of ${this.keys.name} is damaged (${why})`, {
        cause,
      });
    if (typeof wrapped !== 'string' || !isSealed(wrapped) || wrapped.startsWith(USER_PREFIX))
      throw damaged('not a wrapped key');
    let fields: { gen?: unknown; key?: unknown };
    try {
      fields = JSON.parse(this.base.open(wrapped, `user-key\n${slot}`)) as typeof fields;
    } catch (error) {
      throw damaged(error instanceof ChatstateError ? error.message : 'not JSON', error);
    }
    const secret = typeof fields.key === 'string' ? Buffer.from(fields.key, 'base64url') : undefined;
    if (typeof fields.gen !== 'string' || !GEN.test(fields.gen) || secret?.length !== 32)
      throw damaged('not a 32-byte key with its generation');
    return { label: `u.${slot}.${fields.gen}`, secret, fingerprint: fingerprint(secret) };
  }

  /** The key `label` names, or `undefined` when the key store no longer has it. */
  private async find(label: string): Promise<UserKey | undefined> {
    const known = this.cache.get(label);
    if (known !== undefined) return known;
    const slot = label.split('.')[1] ?? '';
    const wrapped = await this.call('read a key', () => this.keys.get(slot));
    if (wrapped === undefined) return undefined;
    const key = this.unwrap(slot, wrapped);
    // Another generation of the slot: the key this label names was destroyed.
    if (key.label !== label) return undefined;
    this.cache.set(label, key);
    return key;
  }

  /** The keys `labels` name that the key store has. */
  private async held(labels: Set<string>): Promise<Map<string, UserKey>> {
    const found = await Promise.all([...labels].map(async (label) => [label, await this.find(label)] as const));
    return new Map(found.filter((entry): entry is readonly [string, UserKey] => entry[1] !== undefined));
  }

  /**
   * The current key of `owner`, made when there is none. Read from the key store on every write,
   * never from the cache: a key another process destroyed must not seal new records.
   */
  private async current(owner: string): Promise<UserKey> {
    const slot = this.slot(owner, this.naming[0] as Buffer);
    let wrapped = await this.call('read a key', () => this.keys.get(slot));
    if (wrapped === undefined) {
      const secret = randomBytes(32);
      const plain = JSON.stringify({ gen: randomBytes(8).toString('base64url'), key: secret.toString('base64url') });
      const made = this.base.seal(plain, `user-key\n${slot}`);
      wrapped = await this.call('store a new key', () => this.keys.create(slot, made));
    }
    const key = this.unwrap(slot, wrapped);
    this.cache.set(key.label, key);
    return key;
  }

  async forRead(check: string | undefined, datas: Iterable<string | undefined>): Promise<RecordCipher> {
    const labels = labelsOf(check, datas);
    if (labels.size === 0) return userCipher(this.base, new Map(), undefined, this.store);
    return userCipher(this.base, await this.held(labels), undefined, this.store);
  }

  async forWrite(owner: string | undefined, check: string | undefined): Promise<RecordCipher> {
    const labels = labelsOf(check, []);
    const held = await this.held(labels);
    // A session that needs a destroyed key is refused by its key check: no key is made for it.
    const refused = held.size < labels.size;
    const sealing = owner === undefined || refused ? undefined : await this.current(owner);
    return userCipher(this.base, held, sealing, this.store);
  }

  async forget(owner: string): Promise<number> {
    let count = 0;
    for (const naming of this.naming) {
      const slot = this.slot(owner, naming);
      if (await this.call('destroy a key', () => this.keys.destroy(slot))) count += 1;
      this.cache.deleteWhere((label) => label.startsWith(`u.${slot}.`));
    }
    return count;
  }
}

/** The ciphers of a store without per-user keys: its own cipher for everything. */
function storeKeyOnly(base: RecordCipher): StoreCiphers {
  return {
    base,
    perUser: false,
    forRead: async () => base,
    forWrite: async () => base,
    forget: async () => 0,
  };
}

/**
 * The ciphers of a store with cipher `base` (of `key`), with per-user keys in `userKeys` when
 * given (`INVALID_ARGUMENT` without `key`: user keys are wrapped and named with the store's key).
 */
export function storeCiphers(
  base: RecordCipher,
  key: AtRestKey | undefined,
  userKeys: UserKeyStore | undefined,
  store: string,
): StoreCiphers {
  if (userKeys === undefined) return storeKeyOnly(base);
  if (key === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: userKeys needs encryption (a store key): user keys are wrapped and named with it`,
    );
  const shape = userKeys as Partial<UserKeyStore> | null;
  if (
    typeof shape !== 'object' ||
    shape === null ||
    typeof shape.get !== 'function' ||
    typeof shape.create !== 'function' ||
    typeof shape.destroy !== 'function'
  )
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: userKeys must be a UserKeyStore (get, create, destroy)`);
  return new UserKeyring(base, key, userKeys, store);
}
