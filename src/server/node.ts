/**
 * `startServer`: the API served on Node by `@hono/node-server`, with the rule that a server
 * without API keys listens on loopback only, and a graceful close that lets requests in flight
 * (turns included) finish before the listener goes away, and aborts the turns that outlast it.
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { ClosedError, InvalidInputError } from '../errors.js';
import { createServerApp, type ServerAppOptions } from './app.js';
import { isLoopback } from './loopback.js';

/** Options of `startServer`. */
export interface StartServerOptions extends ServerAppOptions {
  /** @default 3000 (0 picks a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly hostname?: string;
}

/** A running server. */
export interface RunningServer {
  /** Its base URL, such as `http://127.0.0.1:3000`. */
  readonly url: string;
  /**
   * Closes gracefully: stops accepting connections, ends event streams, answers a request that
   * still arrives 503 `CLOSED`, and lets the requests in flight (turns included) finish. Past
   * `graceMs` the turns still running are aborted (their model calls too: they store nothing and
   * answer 503 `ABORTED`), and connections still open a moment later are cut. Resolves when every
   * connection is closed. Calling it again returns the same promise, with the sooner deadline. The
   * store stays open: whoever opened it closes it.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long `close` lets requests in flight finish by default: under the 30 s a process manager usually waits before SIGKILL. */
export const DEFAULT_GRACE_MS = 25_000;

/** How long aborted turns get to answer before their connections are cut. */
const ABORTED_ANSWER_MS = 2_000;

/**
 * Ends each connection of a closing server as soon as it has no response left to send. Node keeps
 * an idle keep-alive connection open for its timeout even after `close()`: a closing server that
 * waited for that would wait seconds for nothing. A request that still arrives on an open
 * connection is answered (503 by the app) with `Connection: close`.
 */
function endConnectionsWhenDone(server: Server, closing: AbortSignal): void {
  // Responses not yet sent, per connection (pipelined requests queue their responses).
  const pending = new WeakMap<Socket, number>();
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    pending.set(socket, (pending.get(socket) ?? 0) + 1);
    if (closing.aborted) response.setHeader('Connection', 'close');
    response.once('close', () => {
      const left = (pending.get(socket) ?? 1) - 1;
      pending.set(socket, left);
      // `end`, not `destroy`: what was written is still sent, and a request already on its way is not cut off mid-answer.
      if (left === 0 && closing.aborted) socket.end();
    });
  });
}

/** Starts the API on `hostname:port`; refuses a non-loopback address when there are no API keys. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  if ((options.keys === undefined || options.keys.size === 0) && !isLoopback(hostname)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Refusing to listen on ${hostname} without API keys: anyone who can reach it would read every session. Give a key file (--keys), or listen on 127.0.0.1`,
    );
  }
  // Aborted by close: event streams end and new requests are refused, so the requests in flight can finish.
  const closing = new AbortController();
  // Aborted when the grace period is over: the turns still running stop.
  const graceOver = new AbortController();
  const signal = options.signal === undefined ? closing.signal : AbortSignal.any([closing.signal, options.signal]);
  const turnSignal =
    options.turnSignal === undefined ? graceOver.signal : AbortSignal.any([graceOver.signal, options.turnSignal]);
  const app = createServerApp({ ...options, signal, turnSignal });
  const server = createAdaptorServer({ fetch: app.fetch, hostname }) as Server;
  endConnectionsWhenDone(server, closing.signal);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  let done = false;
  let deadline = Infinity;
  let graceTimer: NodeJS.Timeout | undefined;
  const timers: NodeJS.Timeout[] = [];
  /** Ends the grace period at `at` (or sooner, when a later call asks for that). */
  const endGraceAt = (at: number): void => {
    if (done || at >= deadline) return;
    deadline = at;
    clearTimeout(graceTimer);
    graceTimer = setTimeout(
      () => {
        graceOver.abort(new ClosedError('The server closed before the turn ended'));
        // Aborted turns answer at once; whatever still holds a connection after that is cut.
        timers.push(setTimeout(() => server.closeAllConnections(), ABORTED_ANSWER_MS));
      },
      Math.max(0, at - Date.now()),
    );
  };
  return {
    url: `http://${shown}:${address.port}`,
    close: (graceMs = DEFAULT_GRACE_MS) => {
      endGraceAt(Date.now() + Math.max(0, graceMs));
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => {
          done = true;
          clearTimeout(graceTimer);
          for (const timer of timers) clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
