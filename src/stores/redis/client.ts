/**
 * The Redis store's connection: `ioredis` loaded on demand, store URLs split into the client's URL
 * and the store's own parameters, and the checks of the write-confirmation options.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import type { RedisConfirm, RedisLike } from './index.js';
import { STORE } from './records.js';

/** A client the store created, and so closes. */
export interface OwnedClient extends RedisLike {
  quit(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** `ioredis`'s `Redis` class, by shape. */
export type RedisConstructor = new (url: string, options: Record<string, unknown>) => OwnedClient;

/** The `Redis` class of `ioredis`; `MISSING_DEPENDENCY` naming the package when it is not installed. */
export async function loadIoredis(): Promise<RedisConstructor> {
  let module: { default?: unknown; Redis?: unknown };
  try {
    module = (await import('ioredis')) as unknown as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InvalidInputError('MISSING_DEPENDENCY', `${STORE}: the redis store needs the \`ioredis\` package: npm install ioredis (or pass your own client)`, {
        cause: error,
        details: { package: 'ioredis' },
      });
    }
    throw error;
  }
  const Redis = module.Redis ?? module.default;
  if (typeof Redis !== 'function') throw new InvalidInputError('MISSING_DEPENDENCY', `${STORE}: the installed \`ioredis\` package has no Redis class`, { details: { package: 'ioredis' } });
  return Redis as RedisConstructor;
}

/** Splits a store URL into the `ioredis` URL and the store's own `prefix` parameter. */
export function parseUrl(url: string): { url: string; prefix?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    // The URL is not echoed: it may carry a password.
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: the connection URL is not a valid URL`, { cause: error });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: expected a redis:// or rediss:// URL, got ${parsed.protocol}`);
  }
  const prefix = parsed.searchParams.get('prefix') ?? undefined;
  parsed.searchParams.delete('prefix');
  return { url: parsed.toString(), ...(prefix === undefined ? {} : { prefix }) };
}

/** True for anything with a `call` method, as `RedisLike` needs. */
export function isClient(value: unknown): value is RedisLike {
  return typeof value === 'object' && value !== null && typeof (value as { call?: unknown }).call === 'function';
}

/** The confirmation options with their defaults, checked; `INVALID_ARGUMENT` when out of range. */
export function checkedConfirm(confirm: RedisConfirm | undefined): Required<RedisConfirm> | undefined {
  if (confirm === undefined) return undefined;
  const replicas = confirm.replicas ?? 0;
  const timeoutMs = confirm.timeoutMs ?? 1000;
  if (!Number.isInteger(replicas) || replicas < 0) throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: confirm.replicas must be a non-negative integer`);
  // WAIT with a timeout of 0 blocks forever: a positive timeout is required.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: confirm.timeoutMs must be a positive integer`);
  return { replicas, aof: confirm.aof === true, timeoutMs };
}

/** Fails at open, not at the first write, when the server cannot confirm fsyncs (Redis < 7.2, or `appendonly no`). */
export async function probeWaitAof(client: RedisLike, timeoutMs: number): Promise<void> {
  try {
    await client.call('WAITAOF', [1, 0, timeoutMs]);
  } catch (error) {
    const message = (error as { message?: unknown } | null)?.message;
    throw new InvalidInputError('INVALID_ARGUMENT', `${STORE}: confirm.aof needs Redis 7.2 or later with appendonly yes; the server said: ${String(message).slice(0, 200)}`, { cause: error });
  }
}
