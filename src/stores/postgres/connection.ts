/**
 * The Postgres store's connections: checking one out of the pool and using it with every wait
 * bounded, so that a server that is down, restarting, resetting connections or stalled answers
 * each call with `UnavailableError` in bounded time instead of crashing the process or hanging.
 *
 * - `pg` emits `'error'` on a checked-out client whose socket breaks; the pool listens only to
 *   idle clients, so an unheard error would crash the process. A `Checkout` listens while it holds
 *   the client (on a pool the caller passed in too) and stops when it gives the client back.
 * - A statement that gets no answer within `commandTimeoutMs`, or any connection-level failure,
 *   marks the connection broken: it is never used again, and `release` hands it back with the
 *   error, which makes the pool destroy it rather than lend it out again.
 * - A pool the store made tracks its sockets, so `endPool` can destroy those a stalled server
 *   never lets close.
 * @module
 */
import { unreachable, withinDeadline, type ConnectionLimits } from '../network.js';
import { Socket } from 'node:net';
import { ChatstateError, errorMessage } from '../../errors.js';
import { postgresConnectionFailure } from './connection-errors.js';
import type { PgClientLike, PgPoolLike, PgResultLike } from './driver.js';

/** A pool the store created from a URL, and so ends on close. */
export interface OwnedPool extends PgPoolLike {
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A checked-out connection whose statements are bounded in time and whose connection failures are `UnavailableError`. */
export class Checkout implements PgClientLike {
  private broken: Error | undefined;
  private released = false;
  private readonly onError = (error: Error): void => {
    this.broken ??= error;
  };

  constructor(
    private readonly client: PgClientLike,
    private readonly limits: ConnectionLimits,
    private readonly store: string,
  ) {
    client.on?.('error', this.onError);
  }

  /**
   * Runs one statement. Its failure is `UNAVAILABLE` when the connection failed; a `COMMIT` whose
   * connection failed after it was sent has an `unknown` outcome (the server may have committed),
   * every other statement runs inside a transaction that cannot commit without it, or only reads.
   */
  async query(text: string, values?: unknown[]): Promise<PgResultLike> {
    if (this.broken !== undefined) {
      throw unreachable(
        this.store,
        postgresConnectionFailure(this.broken) ?? { reason: 'CONNECTION', notSent: true },
        'not-applied',
        this.broken,
        'the connection broke',
      );
    }
    const running = values === undefined ? this.client.query(text) : this.client.query(text, values);
    // Settled later (when the discarded connection is destroyed): never an unhandled rejection.
    running.catch(() => undefined);
    try {
      return await withinDeadline(
        running,
        this.limits.commandTimeoutMs,
        () => new Error(`Query read timeout: no answer within ${this.limits.commandTimeoutMs} ms`),
      );
    } catch (error) {
      if (ChatstateError.isInstance(error)) throw error;
      const failure = postgresConnectionFailure(error);
      if (failure === undefined) throw error;
      this.broken ??= error instanceof Error ? error : new Error(errorMessage(error));
      const outcome = text === 'COMMIT' && !failure.notSent ? 'unknown' : 'not-applied';
      throw unreachable(
        this.store,
        failure,
        outcome,
        error,
        failure.reason === 'TIMEOUT' ? 'no answer in time' : 'the connection failed',
      );
    }
  }

  /** Marks the connection unusable: `release` discards it. */
  discard(error: Error): void {
    this.broken ??= error;
  }

  /** True when the connection failed or was discarded. */
  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  /** Gives the connection back to its pool, which destroys it when it broke. */
  release(): void {
    if (this.released) return;
    this.released = true;
    // The pool starts listening for errors of an idle client inside release: stop only after it.
    try {
      this.client.release(this.broken);
    } finally {
      this.client.removeListener?.('error', this.onError);
    }
  }
}

/** A connection from `pool`, within `connectTimeoutMs`; `UNAVAILABLE` naming `store` when the server cannot be reached. */
export async function checkout(pool: PgPoolLike, limits: ConnectionLimits, store: string): Promise<Checkout> {
  const connecting = pool.connect();
  try {
    return new Checkout(
      await withinDeadline(
        connecting,
        limits.connectTimeoutMs,
        () => new Error(`timeout exceeded when trying to connect (${limits.connectTimeoutMs} ms)`),
      ),
      limits,
      store,
    );
  } catch (error) {
    // A connection that arrives after we gave up goes straight back to the pool.
    connecting.then(
      (late) => late.release(),
      () => undefined,
    );
    const failure = postgresConnectionFailure(error);
    if (failure === undefined) throw error;
    throw unreachable(store, failure, 'not-applied', error, 'no connection');
  }
}

/** Every socket the store's own pool opened and that is not closed yet, so that a stalled one can be destroyed. */
export class SocketTracker {
  private readonly open = new Set<Socket>();

  /** For `pg`'s `stream` option: a plain socket, remembered until it closes. */
  readonly create = (): Socket => {
    const socket = new Socket();
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /** Destroys every socket still open. */
  destroyAll(): void {
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }
}

/**
 * Ends the store's own pool: gracefully when the server answers, and within `graceMs` in any case.
 * A stalled server never acknowledges the goodbye, so the sockets left after the grace are destroyed.
 */
export async function endPool(pool: OwnedPool, sockets: SocketTracker, graceMs: number): Promise<void> {
  const ending = pool.end().catch(() => undefined);
  const graceOver = () => new Error('grace over');
  try {
    await withinDeadline(ending, graceMs, graceOver);
  } catch {
    sockets.destroyAll();
    // Destroyed sockets close at once, which lets the pool finish; bounded anyway.
    await withinDeadline(ending, graceMs, graceOver).catch(() => undefined);
  }
}
