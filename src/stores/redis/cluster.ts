/**
 * The Redis store's Cluster client: `redis+cluster://` URLs (seed nodes, credentials, TLS, the
 * store's `prefix`), and `ioredis`'s `Cluster` created with options that keep the store's promises
 * — no offline queue, and no command sent again after a failure that may have run it.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import type { ConnectionLimits } from '../network.js';
import { importIoredis, ownedClientOptions, type OwnedClient } from './client.js';

/** One seed node of a cluster URL. */
export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

/** A `redis+cluster://` URL, parsed. */
export interface ClusterUrl {
  readonly nodes: readonly ClusterNode[];
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  readonly prefix?: string;
}

/** `ioredis`'s `Cluster` class, by shape. */
export type ClusterConstructor = new (nodes: ClusterNode[], options: Record<string, unknown>) => OwnedClient;

const SCHEME = /^(rediss?)\+cluster:\/\//i;
const DEFAULT_PORT = 6379;

/** True for a `redis+cluster://` or `rediss+cluster://` URL. */
export function isClusterUrl(url: string): boolean {
  return SCHEME.test(url);
}

function node(text: string, store: string): ClusterNode {
  // `[v6]:port`, `host:port`, or a host alone (the default port).
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[3] === undefined ? DEFAULT_PORT : Number(match[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || port < 1 || port > 65_535)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: a cluster URL lists its nodes as host:port, separated by commas`,
    );
  return { host, port };
}

function decoded(text: string, store: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: the cluster URL's credentials are not valid`, {
      cause: error,
    });
  }
}

/**
 * Parses `redis+cluster://[user:password@]host:port[,host:port…][/0][?prefix=…]` (`rediss+cluster`
 * for TLS). The nodes are seeds: the client learns the others from them. The URL is never echoed
 * in an error: it may carry a password.
 */
export function parseClusterUrl(url: string, store: string): ClusterUrl {
  const scheme = SCHEME.exec(url);
  if (scheme === null)
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: expected a redis+cluster:// or rediss+cluster:// URL`);
  const rest = url.slice(scheme[0].length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const slash = beforeQuery.indexOf('/');
  const authority = slash === -1 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash === -1 ? '' : beforeQuery.slice(slash + 1);
  // Redis Cluster has one database.
  if (path !== '' && path !== '0')
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: Redis Cluster has only database 0`);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? undefined : authority.slice(0, at);
  const hosts = at === -1 ? authority : authority.slice(at + 1);
  if (hosts === '') throw new InvalidInputError('INVALID_ARGUMENT', `${store}: a cluster URL needs at least one node`);
  const nodes = hosts.split(',').map((text) => node(text, store));
  for (const name of query.keys())
    if (name !== 'prefix')
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${store}: a cluster URL takes only the prefix parameter, not ${JSON.stringify(name.slice(0, 40))}`,
      );
  let username: string | undefined;
  let password: string | undefined;
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    const user = decoded(colon === -1 ? credentials : credentials.slice(0, colon), store);
    if (user !== '') username = user;
    if (colon !== -1) password = decoded(credentials.slice(colon + 1), store);
  }
  const prefix = query.get('prefix') ?? undefined;
  return {
    nodes,
    tls: scheme[1]?.toLowerCase() === 'rediss',
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(prefix === undefined ? {} : { prefix }),
  };
}

/**
 * The `ioredis` `Cluster` options of the store's own cluster client. Its node connections get the
 * single-server client's options, but `ioredis` keeps their offline queue on (a node connects on
 * its first command) and does not reconnect a lost node (it finds it again through `MOVED`).
 *
 * The cluster's own offline queue stays on too: with it off, `ioredis` refuses every command sent
 * to a node whose connection is still being made — the concurrent first commands to each node,
 * and the first ones after a node came back. Nothing waits in it for long: the store sends only
 * while the cluster is `ready` (connection.ts), and a node's connection is made or given up
 * within `connectTimeoutMs`, inside the command's own timeout. A write that times out anyway is
 * reported with the outcome `unknown`.
 */
export function ownedClusterOptions(
  parsed: ClusterUrl,
  limits: ConnectionLimits,
  blockingMs: number,
): Record<string, unknown> {
  const { enableOfflineQueue: _queue, retryStrategy, ...node } = ownedClientOptions(limits, blockingMs);
  return {
    enableOfflineQueue: true,
    clusterRetryStrategy: retryStrategy,
    // A command that failed on a dropped connection, or while the cluster was down, is never sent
    // again behind its caller's back: it may have run. Redirections (MOVED, ASK) are still
    // followed: a node that answers one has not run the command.
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    // The ready check asks one random node for CLUSTER INFO and starts over when it fails: with a
    // master down, the client would keep dropping a connection that serves the other masters. A
    // cluster that is down answers each command with CLUSTERDOWN instead, which is UNAVAILABLE.
    enableReadyCheck: false,
    slotsRefreshTimeout: limits.connectTimeoutMs,
    redisOptions: {
      ...node,
      ...(parsed.username === undefined ? {} : { username: parsed.username }),
      ...(parsed.password === undefined ? {} : { password: parsed.password }),
      ...(parsed.tls ? { tls: {} } : {}),
    },
  };
}

/** The `Cluster` class of `ioredis`; `MISSING_DEPENDENCY` naming the package when it is not installed. */
export async function loadIoredisCluster(store: string): Promise<ClusterConstructor> {
  const module = await importIoredis(store);
  const Cluster = module.Cluster ?? (module.default as { Cluster?: unknown } | undefined)?.Cluster;
  if (typeof Cluster !== 'function')
    throw new InvalidInputError(
      'MISSING_DEPENDENCY',
      `${store}: the installed \`ioredis\` package has no Cluster class`,
      {
        details: { package: 'ioredis' },
      },
    );
  return Cluster as ClusterConstructor;
}

/**
 * The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM) of its hash tag — the text
 * between the first `{` and the next `}`, when not empty — or of the whole key, modulo 16384.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  const close = open === -1 ? -1 : bytes.indexOf(0x7d, open + 1);
  const hashed = close > open + 1 ? bytes.subarray(open + 1, close) : bytes;
  let crc = 0;
  for (const byte of hashed) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}

/** One node connection of a cluster client, by the members the store uses. */
export interface NodeConnection {
  readonly status: string;
  /** Closes it for good; the cluster client makes a new one when the node is needed again. */
  disconnect(): void;
}

/** `ioredis`'s `Cluster`, by the public members that tell which node connection serves a slot. */
interface ClusterNodes {
  readonly slots: ReadonlyArray<ReadonlyArray<string> | undefined>;
  nodes(role: 'all'): Array<NodeConnection & { readonly options: { readonly host?: string; readonly port?: number } }>;
}

function hasNodes(client: unknown): client is ClusterNodes {
  const candidate = client as Partial<ClusterNodes> | null;
  return Array.isArray(candidate?.slots) && typeof candidate?.nodes === 'function';
}

/**
 * For a cluster client: for a keyed command (`EVALSHA`/`EVAL` with one declared key), a lookup of
 * the connection of the node its slot is served by, so that a command that got no reply replaces
 * that node's connection alone and the other masters' traffic goes on. The lookup may find none
 * (a node whose connection was dropped is connected again only when a command is redirected to
 * it), so it is asked again when needed. `undefined` for any other command or client.
 */
export function nodeOfCommand(
  client: unknown,
):
  | ((command: string, args: ReadonlyArray<string | number>) => (() => NodeConnection | undefined) | undefined)
  | undefined {
  if (!hasNodes(client)) return undefined;
  return (command, args) => {
    if ((command !== 'EVALSHA' && command !== 'EVAL') || args[1] !== 1 || typeof args[2] !== 'string') return undefined;
    const slot = keySlot(args[2]);
    return () => {
      const owner = client.slots[slot]?.[0];
      if (owner === undefined) return undefined;
      return client.nodes('all').find((node) => `${node.options.host}:${node.options.port}` === owner);
    };
  };
}
