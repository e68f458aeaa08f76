/**
 * A TCP proxy on 127.0.0.1 that puts real network faults between a store and its server, switched
 * at any time: `pass` (forward both ways), `reset` (every connection, open or new, is reset with an
 * RST), `refuse` (the port stops listening: new connections are refused, open ones keep going) and
 * `stall` (connections stay open and are accepted, but not a byte is forwarded either way until the
 * mode changes; what was held back then flows, so a client that kept a stalled connection really
 * receives its late replies). `loseReplyTo` lets one request through to the server, throws its
 * reply away and resets the connection: the acknowledgement of a write that did happen is lost.
 *
 * Loopback only, both sides; `close()` destroys every socket and stops listening.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with connections. */
export type FaultMode = 'pass' | 'reset' | 'refuse' | 'stall';

/** A running proxy. */
export interface FaultProxy {
  /** The port clients connect to (on 127.0.0.1). */
  readonly port: number;
  /** The current mode. */
  readonly mode: FaultMode;
  /** Connections open now. */
  readonly connections: number;
  /** Switches the mode; resolves once it is in force (the port listens again after `refuse`). */
  setMode(mode: FaultMode): Promise<void>;
  /**
   * Arms a one-shot fault: the next client→server bytes for which `matches` is true (it sees the
   * bytes of the current chunk with the end of the previous one, sent after arming) are forwarded, the server's reply
   * to them is dropped and the connection is reset. Resolves once that happened; rejects after
   * `timeoutMs` if no request matched.
   */
  loseReplyTo(matches: (recent: Buffer) => boolean, timeoutMs?: number): Promise<void>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  readonly server: Socket;
  /** The end of the last client chunk, so that a request split across two chunks still matches. */
  tail: Buffer;
  /** Set once the request of an armed `loseReplyTo` went out on this link. */
  loseReply: (() => void) | undefined;
}

interface Armed {
  readonly matches: (recent: Buffer) => boolean;
  readonly done: () => void;
}

const HOST = '127.0.0.1';
const TAIL_BYTES = 256;

/** Starts a proxy on a free loopback port in front of `127.0.0.1:targetPort`. */
export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  const links = new Set<Link>();
  let mode: FaultMode = 'pass';
  let armed: Armed | undefined;
  let closed = false;
  let listener: Server | undefined;
  let port = 0;

  const drop = (link: Link): void => {
    links.delete(link);
    link.client.destroy();
    link.server.destroy();
  };

  const reset = (link: Link): void => {
    links.delete(link);
    if (!link.client.destroyed) link.client.resetAndDestroy();
    if (!link.server.destroyed) link.server.resetAndDestroy();
  };

  const accept = (client: Socket): void => {
    client.on('error', () => undefined);
    if (closed || mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const server = connect({ host: HOST, port: targetPort });
    server.on('error', () => undefined);
    const link: Link = { client, server, tail: Buffer.alloc(0), loseReply: undefined };
    links.add(link);
    client.setNoDelay(true);
    server.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      const recent = Buffer.concat([link.tail, chunk]);
      link.tail = recent.subarray(Math.max(0, recent.length - TAIL_BYTES));
      if (armed !== undefined && armed.matches(recent)) {
        link.loseReply = armed.done;
        armed = undefined;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (link.loseReply !== undefined) {
        // The server answered: the request was applied, and its reply is never delivered.
        const done = link.loseReply;
        link.loseReply = undefined;
        reset(link);
        done();
        return;
      }
      client.write(chunk);
    });
    // Either side going away takes the other with it: a server that died looks dead to the client.
    client.on('close', () => drop(link));
    server.on('close', () => drop(link));
    if (mode === 'stall') {
      client.pause();
      server.pause();
    }
  };

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const next = createServer(accept);
      next.once('error', reject);
      next.listen(port, HOST, () => {
        next.removeListener('error', reject);
        next.on('error', () => undefined);
        listener = next;
        const address = next.address();
        port = typeof address === 'object' && address !== null ? address.port : port;
        resolve();
      });
    });

  const unlisten = (): void => {
    // Stops accepting at once; links already made are ours, not the listener's.
    listener?.close();
    listener = undefined;
  };

  await listen();

  return {
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    get connections() {
      return links.size;
    },
    async setMode(next: FaultMode): Promise<void> {
      if (closed) throw new Error('the fault proxy is closed');
      const previous = mode;
      mode = next;
      if (next === 'refuse') unlisten();
      else if (previous === 'refuse') await listen();
      if (next === 'reset') for (const link of [...links]) reset(link);
      for (const link of links) {
        if (next === 'stall') {
          link.client.pause();
          link.server.pause();
        } else {
          link.client.resume();
          link.server.resume();
        }
      }
    },
    loseReplyTo(matches: (recent: Buffer) => boolean, timeoutMs = 10_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          armed = undefined;
          reject(new Error(`fault proxy: no request matched within ${timeoutMs} ms`));
        }, timeoutMs);
        // Only bytes sent from now on may match: what came before was answered already.
        for (const link of links) link.tail = Buffer.alloc(0);
        armed = {
          matches,
          done: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      armed = undefined;
      unlisten();
      for (const link of [...links]) drop(link);
    },
  };
}

/** The simple-protocol `Query` message of Postgres carrying `COMMIT` (what `pg` sends to commit a transaction). */
export const POSTGRES_COMMIT = Buffer.concat([Buffer.from('Q'), Buffer.from([0, 0, 0, 11]), Buffer.from('COMMIT\0')]);

/** The RESP bytes of `EVALSHA <sha>`, for a matcher of one Redis script call. */
export function redisEvalSha(sha: string): Buffer {
  return Buffer.from(`$7\r\nEVALSHA\r\n$${sha.length}\r\n${sha}\r\n`);
}
