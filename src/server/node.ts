/**
 * `startServer`: the API served on Node by `@hono/node-server`, with the rule that a server
 * without API keys listens on loopback only, and a graceful close that lets requests in flight
 * finish before the listener goes away.
 * @module
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { InvalidInputError } from '../errors.js';
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
  /** Stops accepting connections, lets requests in flight finish (up to `graceMs`), then closes. The store stays open. */
  close(graceMs?: number): Promise<void>;
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
  // Aborted by close: event streams end, so the requests in flight can finish.
  const closing = new AbortController();
  const signal = options.signal === undefined ? closing.signal : AbortSignal.any([closing.signal, options.signal]);
  const app = createServerApp({ ...options, signal });
  const server = createAdaptorServer({ fetch: app.fetch, hostname }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        closing.abort();
        // Idle keep-alive connections close now; busy ones when their response is sent, or at the grace limit.
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
