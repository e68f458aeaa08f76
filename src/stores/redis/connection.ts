/**
 * The Redis store's connection: every command sent with its waits bounded, so that a server that
 * is down, restarting, loading its data, resetting connections or stalled answers each call with
 * `UnavailableError` in bounded time, never a crash, a hang or a command run long after its caller
 * gave up.
 *
 * - Commands are sent only on a ready connection. While `ioredis` reconnects, a call waits for it at
 *   most `connectTimeoutMs`, and fails at once when the last attempt was refused: nothing sits in an
 *   offline queue to run later, behind the back of a caller that was told it failed.
 * - A command unanswered within `commandTimeoutMs` fails, and the store's own client drops that
 *   connection for a new one (otherwise every later command would wait behind the stuck one). The
 *   socket is destroyed, not ended, so a late reply on it can never reach a later command.
 * - Commands in flight when the connection drops fail (the store's client never resends them).
 *
 * A client the caller passed in keeps its own options; its calls are bounded the same way, and its
 * connection state is read (never changed) when it is an `ioredis` client.
 *
 * On the store's own cluster client, a command without a reply replaces only the connection of
 * the node it went to (`nodeOf`): one stalled master does not cut the others' traffic.
 * @module
 */
import { unreachable, withinDeadline, type ConnectionLimits } from '../network.js';
import { ChatstateError } from '../../errors.js';
import { closedError } from '../../store/driver-helpers.js';
import type { OwnedClient } from './client.js';
import type { NodeConnection } from './cluster.js';
import { redisConnectionFailure } from './connection-errors.js';
import type { RedisLike } from './driver.js';

/** Whether a command changes data: a failed write whose request was sent may have run. */
export type Effect = 'read' | 'write';

/** `ioredis`'s connection state, by shape: read only, to wait for a ready connection. */
interface StatefulClient {
  readonly status: string;
  on(event: 'ready' | 'close', listener: () => void): unknown;
  removeListener(event: 'ready' | 'close', listener: () => void): unknown;
}

function isStateful(client: RedisLike): client is RedisLike & StatefulClient {
  const candidate = client as Partial<StatefulClient>;
  return (
    typeof candidate.status === 'string' &&
    typeof candidate.on === 'function' &&
    typeof candidate.removeListener === 'function'
  );
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

const NO_CONNECTION = 'the connection closed before it was ready';

/** Sends commands over the store's client (or the caller's), bounded in time, with connection failures typed. */
export class RedisConnection {
  private readonly stateful: (RedisLike & StatefulClient) | undefined;
  private readonly waiters = new Set<Waiter>();
  private lastError: unknown;
  /** The current connection reached `ready`; false from its close until the next one does. */
  private reachedReady = false;
  /** The last connection attempt closed without reaching `ready`: the server is refusing us. */
  private attemptFailed = false;
  /** Counts ready connections, so that a timeout replaces only the connection its command was sent on. */
  private epoch = 0;
  /** The epoch whose connection `replace` already dropped. */
  private replaced = -1;
  private closed = false;

  private readonly onReady = (): void => {
    this.reachedReady = true;
    this.attemptFailed = false;
    this.lastError = undefined;
    this.epoch += 1;
    for (const waiter of this.waiters) waiter.resolve();
  };

  private readonly onClose = (): void => {
    this.attemptFailed = !this.reachedReady;
    this.reachedReady = false;
    const error = this.lastError ?? new Error(NO_CONNECTION);
    for (const waiter of this.waiters) waiter.reject(error);
  };

  private readonly onError = (error: unknown): void => {
    this.lastError = error;
  };

  constructor(
    private readonly client: RedisLike,
    private readonly limits: ConnectionLimits,
    private readonly owned: OwnedClient | undefined,
    /** Name of the store in error messages. */
    private readonly store: string,
    /** On the store's own cluster client: a lookup of the node connection a keyed command goes to (see cluster.ts). */
    private readonly nodeOf?: (
      command: string,
      args: ReadonlyArray<string | number>,
    ) => (() => NodeConnection | undefined) | undefined,
  ) {
    this.stateful = isStateful(client) ? client : undefined;
    this.reachedReady = this.stateful?.status === 'ready';
    this.stateful?.on('ready', this.onReady);
    this.stateful?.on('close', this.onClose);
    // Only the store's own client: on a caller's client an 'error' listener would silence its own reporting.
    owned?.on('error', this.onError);
  }

  /** Resolves when a command can be written now; `UNAVAILABLE` when no connection is ready within `connectTimeoutMs`. */
  private async ready(): Promise<void> {
    const status = this.stateful?.status;
    // Ready, or a state the client handles by itself ('wait': a lazy client connects on its first command).
    if (status === undefined || status === 'ready' || status === 'wait' || status === 'end') return;
    if (status === 'reconnecting' && this.attemptFailed) {
      throw unreachable(
        this.store,
        redisConnectionFailure(this.lastError) ?? { reason: 'CONNECTION', notSent: true },
        'not-applied',
        this.lastError ?? new Error(NO_CONNECTION),
        'the last connection attempt failed',
      );
    }
    let waiter: Waiter | undefined;
    const waiting = new Promise<void>((resolve, reject) => {
      waiter = { resolve, reject };
      this.waiters.add(waiter);
    });
    try {
      await withinDeadline(
        waiting,
        this.limits.connectTimeoutMs,
        () => new Error(`connect ETIMEDOUT: no ready connection within ${this.limits.connectTimeoutMs} ms`),
      );
    } catch (error) {
      const failure = redisConnectionFailure(error) ?? { reason: 'CONNECTION' as const, notSent: true };
      throw unreachable(this.store, failure, 'not-applied', error, 'no ready connection');
    } finally {
      if (waiter !== undefined) this.waiters.delete(waiter);
    }
  }

  /**
   * Sends one command. A connection failure is `UNAVAILABLE`: `not-applied` for reads and for
   * commands that certainly never ran, `unknown` for a write whose request may have reached the
   * server. `extraMs` lengthens the wait for a command that blocks on the server (`WAIT`).
   */
  async call(command: string, args: Array<string | number>, effect: Effect, extraMs = 0): Promise<unknown> {
    if (this.closed) throw closedError(this.store);
    await this.ready();
    const epoch = this.epoch;
    const nodeLookup = this.nodeOf?.(command, args);
    const sentOn = nodeLookup?.();
    // A client that has ended (only a caller's can be) rejects the command without sending it.
    const ended = this.stateful?.status === 'end';
    const sending = this.client.call(command, args);
    // Settled later (when a dropped connection flushes it): never an unhandled rejection.
    sending.catch(() => undefined);
    const limitMs = this.limits.commandTimeoutMs + extraMs;
    try {
      return await withinDeadline(sending, limitMs, () => new Error(`Command timed out after ${limitMs} ms`));
    } catch (error) {
      if (ChatstateError.isInstance(error)) throw error;
      const failure = redisConnectionFailure(error);
      if (failure === undefined) throw error;
      if (failure.reason === 'TIMEOUT') {
        if (nodeLookup === undefined) this.replace(epoch);
        else {
          // The connection of the command's node: the one it went out on, or the one made for it
          // since (the node had none when it was sent). Never the whole cluster client.
          const node = sentOn ?? nodeLookup();
          if (node?.status === 'ready') node.disconnect();
        }
      }
      throw unreachable(
        this.store,
        failure,
        failure.notSent || ended || effect === 'read' ? 'not-applied' : 'unknown',
        error,
        failure.reason === 'TIMEOUT' ? 'no reply in time' : 'the connection failed',
      );
    }
  }

  /**
   * Drops the store's own connection after a command got no reply, so the next command gets a
   * new one. Only the connection that command went out on: a newer one, or one still handshaking
   * (bounded by the client's own command timeout), is left alone.
   */
  private replace(epoch: number): void {
    const owned = this.owned;
    // Every command in flight on a stalled connection times out at once: the first drops it.
    if (owned === undefined || owned.status !== 'ready' || epoch !== this.epoch || this.replaced === epoch) return;
    this.replaced = epoch;
    // With the client's disconnectTimeout of 0 the socket is destroyed, then a new one is made.
    owned.disconnect(true);
  }

  /** Stops listening, and closes the store's own client: gracefully, within `connectTimeoutMs` in any case. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stateful?.removeListener('ready', this.onReady);
    this.stateful?.removeListener('close', this.onClose);
    for (const waiter of this.waiters) waiter.reject(new Error('Connection is closed.'));
    const owned = this.owned;
    if (owned === undefined) return;
    if (owned.status === 'ready') {
      // QUIT is answered after every reply before it; a stalled server never answers it.
      await withinDeadline(owned.quit(), this.limits.connectTimeoutMs, () => new Error('QUIT unanswered')).catch(
        () => undefined,
      );
    }
    if (owned.status !== 'end') owned.disconnect();
  }
}
