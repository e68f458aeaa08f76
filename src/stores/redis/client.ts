/**
 * The Redis store's client: `ioredis` loaded on demand and the options the store creates it with,
 * store URLs split into the client's URL and the store's own parameters, and the checks of the
 * driver's options.
 * @module
 */
import { ChatstateError, InvalidInputError } from '../../errors.js';
import { parseConnectionUrl, type ConnectionLimits } from '../network.js';
import type { RedisConfirm, RedisLike } from './driver.js';

/** A client the store created, and so closes: `ioredis`'s `Redis`, by the members the store uses. */
export interface OwnedClient extends RedisLike {
  /** `ioredis`'s connection state: `ready` when commands can be written. */
  readonly status: string;
  quit(): Promise<unknown>;
  /** Closes the connection at once; with `true`, `ioredis` then connects again. */
  disconnect(reconnect?: boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

// Reconnection backoff of the store's client: 50 ms doubling up to 1 s, so a server that is back is
// found within a second, and a server that is down sees one attempt a second.
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 1000;

/**
 * The `ioredis` options of the store's own client. `blockingMs` is the longest a command may
 * legitimately block on the server (`WAIT`), added to the client's own command timeout.
 */
export function ownedClientOptions(limits: ConnectionLimits, blockingMs: number): Record<string, unknown> {
  return {
    connectionName: 'chatstate',
    connectTimeout: limits.connectTimeoutMs,
    // A backstop for the handshake (HELLO, INFO) of a connection to a stalled server, which the
    // store's own timer does not see: ioredis drops that connection and tries again.
    commandTimeout: limits.commandTimeoutMs + blockingMs,
    // Commands are sent only on a ready connection (see connection.ts): none waits in an offline
    // queue to run after its caller was told it failed.
    enableOfflineQueue: false,
    // Commands in flight when a connection drops fail at once and are never sent again: a resent
    // write could overwrite what the caller wrote after it was told this one failed.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // A dropped connection's socket is destroyed, not half-closed and left open for a stalled peer.
    disconnectTimeout: 0,
    retryStrategy: (times: number) => Math.min(RETRY_FIRST_MS * 2 ** Math.min(times - 1, 10), RETRY_MAX_MS),
  };
}

/** `ioredis`'s `Redis` class, by shape. */
export type RedisConstructor = new (url: string, options: Record<string, unknown>) => OwnedClient;

/** The `ioredis` module; `MISSING_DEPENDENCY` naming the package when it is not installed. */
export async function importIoredis(store: string): Promise<{ default?: unknown; Redis?: unknown; Cluster?: unknown }> {
  try {
    return (await import('ioredis')) as unknown as { default?: unknown; Redis?: unknown; Cluster?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        `${store}: the redis store needs the \`ioredis\` package: npm install ioredis (or pass your own client)`,
        {
          cause: error,
          details: { package: 'ioredis' },
        },
      );
    }
    throw error;
  }
}

/** The `Redis` class of `ioredis`; `MISSING_DEPENDENCY` naming the package when it is not installed. */
export async function loadIoredis(store: string): Promise<RedisConstructor> {
  const module = await importIoredis(store);
  const Redis = module.Redis ?? module.default;
  if (typeof Redis !== 'function')
    throw new InvalidInputError(
      'MISSING_DEPENDENCY',
      `${store}: the installed \`ioredis\` package has no Redis class`,
      { details: { package: 'ioredis' } },
    );
  return Redis as RedisConstructor;
}

/** Splits a store URL into the `ioredis` URL and the store's own `prefix` parameter. */
export function parseUrl(url: string, store: string): { url: string; prefix?: string } {
  const parsed = parseConnectionUrl(url, store, ['redis:', 'rediss:']);
  const prefix = parsed.searchParams.get('prefix') ?? undefined;
  parsed.searchParams.delete('prefix');
  return { url: parsed.toString(), ...(prefix === undefined ? {} : { prefix }) };
}

/** True for anything with a `call` method, as `RedisLike` needs. */
export function isClient(value: unknown): value is RedisLike {
  return typeof value === 'object' && value !== null && typeof (value as { call?: unknown }).call === 'function';
}

/** The confirmation options with their defaults, checked; `INVALID_ARGUMENT` when out of range. */
export function checkedConfirm(confirm: RedisConfirm | undefined, store: string): Required<RedisConfirm> | undefined {
  if (confirm === undefined) return undefined;
  const replicas = confirm.replicas ?? 0;
  const timeoutMs = confirm.timeoutMs ?? 1000;
  if (!Number.isInteger(replicas) || replicas < 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: confirm.replicas must be a non-negative integer`);
  // WAIT with a timeout of 0 blocks forever: a positive timeout is required.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: confirm.timeoutMs must be a positive integer`);
  return { replicas, aof: confirm.aof === true, timeoutMs };
}

/** Fails at open, not at the first write, when the server cannot confirm fsyncs (Redis < 7.2, or `appendonly no`). */
export async function probeWaitAof(
  call: (command: string, args: number[]) => Promise<unknown>,
  timeoutMs: number,
  store: string,
): Promise<void> {
  try {
    await call('WAITAOF', [1, 0, timeoutMs]);
  } catch (error) {
    // A server that cannot be reached says nothing about its version.
    if (ChatstateError.hasCode(error, 'UNAVAILABLE')) throw error;
    const message = (error as { message?: unknown } | null)?.message;
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: confirm.aof needs Redis 7.2 or later with appendonly yes; the server said: ${String(message).slice(0, 200)}`,
      { cause: error },
    );
  }
}
