/**
 * The Redis store's change feed: after each write the driver PUBLISHes the change on the store's
 * channel (`<prefix>changes`), and a dedicated subscriber connection SUBSCRIBEs to it. Plain
 * PUBLISH/SUBSCRIBE also works on Redis Cluster (through `ioredis`' Cluster client): every node
 * passes a message on to the others, and each change is published from its session's own node so
 * that one session's changes arrive in the order they were written.
 *
 * Pub/sub does not keep messages for a subscriber that is away: when the subscriber's connection
 * drops, the feed reports `interrupted`, and once it is subscribed again `live(gap: true)`, which
 * the core tells as a `reset`. A heartbeat PING finds a connection that died without closing.
 * The publish follows the write in a second command (the write's promise waits for it): a process
 * that dies (or loses its connection) between the two leaves that one change untold — which is why the `SessionManager`
 * revalidates by version by default, and event streams keep a slow safety poll.
 * @module
 */
import { ChatstateError, UnavailableError, UnsupportedError, errorMessage } from '../../errors.js';
import type { DriverChange, DriverChangeSink } from '../../store/change-types.js';
import { changePayload, parseChange } from '../change-payload.js';
import { withinDeadline, type ConnectionLimits } from '../network.js';
import { redisConnectionFailure } from './connection-errors.js';

/** A subscriber connection, by shape: an `ioredis` `Redis` (or `Cluster`) in subscriber mode. */
export interface SubscriberClient {
  readonly status: string;
  subscribe(channel: string): Promise<unknown>;
  ping(): Promise<unknown>;
  disconnect(reconnect?: boolean): void;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** How often the subscriber connection is asked whether it is alive. */
const HEARTBEAT_MS = 10_000;

/** The channel of a store's key prefix. */
export function changeChannel(prefix: string): string {
  return `${prefix}changes`;
}

/** What the subscriber needs. */
export interface SubscribeOptions {
  /** A new subscriber connection; `undefined` when the store cannot make one (a caller's client without `duplicate`). */
  readonly connect: (() => SubscriberClient) | undefined;
  readonly channel: string;
  readonly limits: ConnectionLimits;
  readonly store: string;
}

/** Subscribes to the store's channel until the returned function is called; never throws (see the module). */
export async function subscribeToChanges(
  options: SubscribeOptions,
  sink: DriverChangeSink,
): Promise<() => Promise<void>> {
  const { channel, limits, store } = options;
  if (options.connect === undefined) {
    sink.interrupted(
      new UnsupportedError(
        `${store}: the change feed needs a second connection, and the client passed in has no duplicate()`,
        { store, capability: 'changes' },
      ),
    );
    return async () => undefined;
  }
  const client = options.connect();
  let stopped = false;
  let subscribed = false;
  // A gap to tell once subscribed again: the connection dropped, or never came up at first.
  let gap = false;
  let lastError: unknown;

  const interrupted = (error: unknown): void => {
    gap = true;
    subscribed = false;
    sink.interrupted(
      ChatstateError.isInstance(error)
        ? error
        : new UnavailableError(
            `${store}: the change feed cannot listen: ${errorMessage(error)}`,
            { store, reason: redisConnectionFailure(error)?.reason ?? 'CONNECTION', outcome: 'not-applied' },
            { cause: error },
          ),
    );
  };

  client.on('error', (error) => void (lastError = error));
  client.on('message', (from, message) => {
    if (from !== channel || !subscribed) return;
    const change = parseChange(message);
    if (change !== undefined) sink.change(change);
  });
  client.on('close', () => {
    if (!stopped) interrupted(lastError ?? new Error('the subscriber connection closed'));
  });
  client.on('ready', () => {
    // Subscribed by us on every new connection (not resubscribed by ioredis behind our back), so
    // `live` is told only once the server has confirmed the subscription.
    const subscribing = client.subscribe(channel);
    subscribing.catch(() => undefined);
    withinDeadline(subscribing, limits.commandTimeoutMs, () => new Error('SUBSCRIBE unanswered')).then(
      () => {
        if (stopped) return;
        subscribed = true;
        sink.live(gap);
      },
      (error: unknown) => {
        if (stopped) return;
        interrupted(error);
        client.disconnect(true);
      },
    );
  });

  const heartbeat = setInterval(() => {
    if (!subscribed) return;
    const ping = client.ping();
    ping.catch(() => undefined);
    withinDeadline(ping, limits.commandTimeoutMs, () => new Error('the subscriber stopped answering')).catch(
      (error: unknown) => {
        if (stopped || !subscribed) return;
        interrupted(error);
        // A new connection; 'ready' subscribes it again.
        client.disconnect(true);
      },
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return async () => {
    stopped = true;
    clearInterval(heartbeat);
    client.removeAllListeners('message');
    client.disconnect();
  };
}

/**
 * The store's side of the feed: publishing its writes, and the subscriber its core starts. A write
 * resolves once its change is published (so other processes hear of it before its caller does
 * anything next); a publish that fails does not fail the write, which is done: it is a process
 * warning, since other processes then miss that change.
 */
export class RedisChangeFeed {
  constructor(
    private readonly options: SubscribeOptions,
    /** Sends PUBLISH `channel` `payload` for `change` (from its session's node, on a cluster). */
    private readonly send: (change: DriverChange, channel: string, payload: string) => Promise<unknown>,
  ) {}

  /** Publishes a change the store committed. */
  async publish(change: DriverChange): Promise<void> {
    const { store, channel } = this.options;
    try {
      await this.send(change, channel, changePayload(change));
    } catch (error) {
      process.emitWarning(
        `${store}: the change of session ${JSON.stringify(change.id)} was stored, but could not be published to other processes: ${errorMessage(error)}`,
        { code: 'CHATSTATE_CHANGE_FEED' },
      );
    }
  }

  /** The driver's `watchChanges`. */
  watch(sink: DriverChangeSink): Promise<() => Promise<void>> {
    return subscribeToChanges(this.options, sink);
  }
}
