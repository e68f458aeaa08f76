/**
 * The Redis store (`ioredis`, loaded only when this store is opened on a URL). Each session is a
 * head hash, a sorted set of message ids by `seq` and a hash of message bodies; sorted-set indexes
 * serve `list`. Every operation is one Lua script (see `driver.ts` and `scripts.ts`), so appends
 * and replaces are atomic across every process sharing the server, and an append touches only the
 * new messages.
 *
 * Retention uses Redis's own expiry: a session's keys get a `PEXPIRE` of its remaining lifetime,
 * so Redis frees them by itself; `purgeExpired` clears the index entries they leave behind.
 *
 * Durability is the server's: a write is as durable as Redis's persistence makes it. For
 * "durable when the promise resolves" run Redis with `appendonly yes` and `appendfsync always`
 * (Redis then answers a write only after fsyncing it). With `confirm`, each write is also followed
 * by `WAIT` (replicas received it) or `WAITAOF` (Redis ≥ 7.2: fsynced locally and on replicas), and
 * the promise rejects when the server does not confirm in time — the write itself has happened then,
 * and retrying an append is safe because appends are idempotent.
 *
 * A server that is down, restarting, loading, resetting connections or stalled never crashes the
 * process: every call then fails within `connectTimeoutMs` / `commandTimeoutMs` with
 * `UnavailableError` (`UNAVAILABLE`, `retryable`), and the same store works again once the server
 * is back (see `connection.ts`).
 *
 * Redis Cluster (`redis+cluster://`, or a caller's `ioredis` `Cluster`) uses a hash-tagged key
 * layout (`layout.ts`): a session, its values and the index entries that list it share one slot,
 * so every script stays atomic; `list` merges the buckets (`list-merge.ts`).
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { storeName } from '../../store/driver-helpers.js';
import type { StoreDriver } from '../../store/driver-types.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { connectionLimits } from '../network.js';
import { RedisChangeFeed, changeChannel, type SubscriberClient } from './change-feed.js';
import {
  checkedConfirm,
  isClient,
  loadIoredis,
  ownedClientOptions,
  parseUrl,
  probeWaitAof,
  type OwnedClient,
} from './client.js';
import { isClusterUrl, loadIoredisCluster, nodeOfCommand, ownedClusterOptions, parseClusterUrl } from './cluster.js';
import { RedisConnection } from './connection.js';
import { RedisDriver, type RedisConfirm, type RedisLike } from './driver.js';
import { clusterLayout, singleLayout } from './layout.js';
import { anyNodeLoaded, refuseClusterConfirm, refuseClusterNode } from './open-checks.js';
import { STORE } from './records.js';
import { SCRIPTS } from './scripts.js';

export type { RedisConfirm, RedisLike } from './driver.js';

/** Options of the Redis driver. */
export interface RedisOptions {
  /** Name of the store in error messages. @default 'redis' */
  name?: string;
  /** Prefix of every key the store writes (or `?prefix=` in the URL). @default 'chatstate:' */
  prefix?: string;
  /** Confirm each write with `WAIT`/`WAITAOF`; without it a write resolves when Redis has applied it. Not on Redis Cluster. */
  confirm?: RedisConfirm;
  /**
   * The Redis Cluster key layout (hash-tagged buckets, see docs/redis-cluster.md); a store must always be
   * opened with the same layout. `false` is refused for a cluster client.
   * @default true for a `redis+cluster://` URL or a client with `isCluster: true`, else false
   */
  cluster?: boolean;
  /**
   * How long a call waits for a ready connection (connect, handshake, the server done loading its
   * data) before failing with `UNAVAILABLE`. While the last attempt was refused, calls fail at once.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /**
   * How long one command may go unanswered before the connection counts as stalled: the call fails
   * with `UNAVAILABLE` and the store's own client replaces the connection. Keep it above the
   * longest command you expect (the save of a 100,000-message session runs about a second in Redis).
   * @default 10000
   */
  commandTimeoutMs?: number;
}

/** Options of `redisStore`: the driver's and the core's. */
export interface RedisStoreOptions extends SessionStoreOptions, RedisOptions {}

const DEFAULT_PREFIX = 'chatstate:';
const MAX_PREFIX = 256;

/**
 * A Redis driver on a URL (`redis://:pass@host:6379/0?prefix=app:`, or
 * `redis+cluster://host1:7000,host2:7001?prefix=app:` for Redis Cluster) or on the caller's client
 * (an `ioredis` `Redis` or `Cluster`, or anything with its `call`). Loads its scripts before it
 * resolves. A client the caller passed is never closed by `close`. Tested with Redis 7.
 *
 * The timeouts bound every call on a caller's client too, and with an `ioredis` client the store
 * waits for its `ready` state before sending; but its options stay the caller's: its offline queue
 * and resending of commands after a reconnect, and replacing a stalled connection, are its own.
 */
export async function redisDriver(urlOrClient: string | RedisLike, options: RedisOptions = {}): Promise<StoreDriver> {
  let client: RedisLike;
  let owned: OwnedClient | undefined;
  let fromUrl: string | undefined;
  let clusterClient = false;
  // The change feed's own connection (pub/sub needs one of its own): a new client, or the caller's duplicated.
  let subscriber: (() => SubscriberClient) | undefined;
  const name = storeName(options.name, STORE);
  const confirm = checkedConfirm(options.confirm, name);
  const limits = connectionLimits(name, options);
  if (typeof urlOrClient === 'string' && isClusterUrl(urlOrClient)) {
    const parsed = parseClusterUrl(urlOrClient, name);
    fromUrl = parsed.prefix;
    clusterClient = true;
    refuseClusterConfirm(confirm, name);
    const Cluster = await loadIoredisCluster(name);
    owned = new Cluster([...parsed.nodes], ownedClusterOptions(parsed, limits, 0));
    client = owned;
    // PUBLISH reaches every node of a cluster: a subscriber on any of them hears every write.
    subscriber = () =>
      new Cluster([...parsed.nodes], ownedClusterOptions(parsed, limits, 0)) as unknown as SubscriberClient;
  } else if (typeof urlOrClient === 'string') {
    const { url, prefix } = parseUrl(urlOrClient, name);
    fromUrl = prefix;
    const Redis = await loadIoredis(name);
    // Its 'error' events are heard by the connection below; ioredis reconnects by itself.
    owned = new Redis(url, ownedClientOptions(limits, confirm?.timeoutMs ?? 0));
    client = owned;
    // Subscribed by the feed itself on each ready connection (see change-feed.ts), not by ioredis.
    subscriber = () =>
      new Redis(url, { ...ownedClientOptions(limits, 0), autoResubscribe: false }) as unknown as SubscriberClient;
  } else if (isClient(urlOrClient)) {
    client = urlOrClient;
    clusterClient = urlOrClient.isCluster === true;
    if (clusterClient) refuseClusterConfirm(confirm, name);
    const duplicate = (urlOrClient as { duplicate?: unknown }).duplicate;
    if (typeof duplicate === 'function') subscriber = () => duplicate.call(urlOrClient) as SubscriberClient;
  } else {
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: expected a redis:// URL or a client with call()`);
  }
  // Only on a cluster client of the store's own: a caller's client keeps its connections as they are.
  const connection = new RedisConnection(client, limits, owned, name, clusterClient ? nodeOfCommand(owned) : undefined);
  try {
    const prefix = options.prefix ?? fromUrl ?? DEFAULT_PREFIX;
    if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > MAX_PREFIX) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${name}: prefix must be a string of 1 to ${MAX_PREFIX} characters`,
      );
    }
    if (options.cluster === false && clusterClient)
      throw new InvalidInputError('INVALID_ARGUMENT', `${name}: a Redis Cluster client needs the cluster key layout`);
    // ioredis applies its keyPrefix to declared KEYS only; the scripts build their keys from
    // ARGV, so the client's prefix is applied here to keep every key under it.
    const keyPrefix = typeof client.options?.keyPrefix === 'string' ? client.options.keyPrefix : '';
    const layout =
      (options.cluster ?? clusterClient) ? clusterLayout(keyPrefix, prefix, name) : singleLayout(keyPrefix + prefix);
    const feed = new RedisChangeFeed(
      { connect: subscriber, channel: changeChannel(keyPrefix + prefix), limits, store: name },
      (change, channel, payload) => driver.publishFrom(change.id, channel, payload),
    );
    const driver: RedisDriver = new RedisDriver(name, connection, layout, confirm, feed);
    // One round trip that also proves the server runs Lua scripts (some hosted Redis do not).
    const loads = Object.values(SCRIPTS).map((script) => connection.call('SCRIPT', ['LOAD', script.source], 'read'));
    if (clusterClient) await anyNodeLoaded(loads);
    else await Promise.all([...loads, refuseClusterNode(connection, name)]);
    if (confirm?.aof === true)
      await probeWaitAof(
        (command, args) => connection.call(command, args, 'read', confirm.timeoutMs),
        confirm.timeoutMs,
        name,
      );
    return driver;
  } catch (error) {
    // Closed within the connect timeout even when the server is down or stalled: a failed open leaves no socket or timer behind.
    await connection.close();
    throw error;
  }
}

/** ✱ A Redis `SessionStore` on a URL or the caller's client. */
export async function redisStore(
  urlOrClient: string | RedisLike,
  options: RedisStoreOptions = {},
): Promise<SessionStore> {
  const { name, prefix, confirm, cluster, connectTimeoutMs, commandTimeoutMs, ...core } = options;
  const driverOptions: RedisOptions = {
    ...(name === undefined ? {} : { name }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(confirm === undefined ? {} : { confirm }),
    ...(cluster === undefined ? {} : { cluster }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
  };
  return createSessionStore(await redisDriver(urlOrClient, driverOptions), core);
}
