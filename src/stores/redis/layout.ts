/**
 * Where the Redis store's keys live: the key layout of one Redis server, and the hash-tagged
 * layout of Redis Cluster.
 *
 * Every script builds its keys from one *base* (its `ARGV[1]`): `<base>s:<id>:h`, `<base>x:all`,
 * `<base>v:<ns>`, … (see `scripts.ts`).
 *
 * - **One server**: a single base, the store's prefix. The keys are exactly those of every earlier
 *   version of the store, so existing data is read as it is.
 * - **Cluster**: 64 *buckets*, each with its own base `<prefix>{<n>}:` (`n` = 0…63). The `{n}` is a
 *   hash tag, so every key of a bucket hashes to one slot: a session, its messages, its values and
 *   the index entries that list it share a bucket (chosen by a hash of the session id), and every
 *   script still touches one slot, atomically, as on one server. `list` and `purgeExpired` visit
 *   every bucket (`list-merge.ts` merges them into one order). The 64 tags spread evenly over the
 *   slot space (21, 22 and 21 of them in the thirds a three-master cluster gets), so sessions
 *   spread over the masters; more than 64 masters would leave some empty.
 *
 * The bucket of a session id (or of a value namespace) is FNV-1a (32 bits) of its UTF-8 bytes,
 * modulo 64. It is part of the stored format: changing it, or the count, would hide stored data.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { namespaceSession } from '../../store/values.js';

/** Buckets of the cluster layout: part of the stored format. */
export const CLUSTER_BUCKETS = 64;

/** Where a store's keys are: the base of each key family, and the key that routes a script to its slot. */
export interface KeyLayout {
  /** True for the hash-tagged layout of Redis Cluster. */
  readonly cluster: boolean;
  /** Every base, in bucket order: `list` and `purgeExpired` visit them all. */
  readonly bases: readonly string[];
  /** The base of a session's keys (and of its index entries). */
  sessionBase(id: string): string;
  /** The base of a value namespace: a session's namespaces live with the session, so `remove` deletes them in one script. */
  valueBase(ns: string): string;
  /**
   * The key a script declares (`KEYS[1]`) so that a cluster client sends it to the node of its
   * slot, without the client's own `keyPrefix` (the client adds it); `undefined` on one server,
   * where scripts declare no key, as before.
   */
  routingKey(base: string): string | undefined;
}

/** FNV-1a, 32 bits, of the UTF-8 bytes of `text`. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The bucket (0…63) of a session id or value namespace in the cluster layout. */
export function bucketOf(text: string): number {
  return fnv1a(text) % CLUSTER_BUCKETS;
}

/** The layout of one Redis server: every key under `prefix`, as the store always had it. */
export function singleLayout(prefix: string): KeyLayout {
  const bases = Object.freeze([prefix]);
  return Object.freeze({
    cluster: false,
    bases,
    sessionBase: () => prefix,
    valueBase: () => prefix,
    routingKey: () => undefined,
  });
}

/**
 * The hash-tagged layout of Redis Cluster. `clientPrefix` is the cluster client's own `keyPrefix`
 * (applied by the client to declared keys); `prefix` is the store's. Neither may hold a brace: a
 * `{…}` in it would become the hash tag of every key and put the whole store in one slot.
 */
export function clusterLayout(clientPrefix: string, prefix: string, store: string): KeyLayout {
  if (/[{}]/.test(clientPrefix + prefix))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: on Redis Cluster the key prefix must not contain "{" or "}" (the store puts its own hash tags after it)`,
    );
  const tag = (bucket: number): string => `${prefix}{${bucket}}:`;
  const bases = Object.freeze(Array.from({ length: CLUSTER_BUCKETS }, (_, bucket) => clientPrefix + tag(bucket)));
  const sessionBase = (id: string): string => bases[bucketOf(id)] as string;
  return Object.freeze({
    cluster: true,
    bases,
    sessionBase,
    valueBase: (ns: string) => sessionBase(namespaceSession(ns) ?? ns),
    // A key every bucket has (the index of all sessions), named without the client's prefix.
    routingKey: (base: string) => `${base.slice(clientPrefix.length)}x:all`,
  });
}
