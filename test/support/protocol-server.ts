/**
 * A local HTTP server that speaks a provider's wire protocol by replaying recorded response bodies:
 * the official clients (`openai`, `@anthropic-ai/sdk`, `ai`) talk real HTTP to it, so tests exercise
 * their request building, headers, retries and error parsing — offline.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded answer: status, JSON body (or raw text), extra headers. */
export interface ReplayedResponse {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (to test aborts). */
  readonly delayMs?: number;
}

/** One request the server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Parsed JSON body (`undefined` when empty or not JSON). */
  readonly body: unknown;
}

/** Decides the answer to a request; return `undefined` to fall back to the queue. */
export type Responder = (request: ReceivedRequest) => ReplayedResponse | undefined;

/** A running protocol server. */
export interface ProtocolServer {
  /** `http://127.0.0.1:<port>` — pass `${url}/v1` (or the provider's base path) to the client. */
  readonly url: string;
  /** Requests received so far, in order. */
  readonly requests: ReceivedRequest[];
  /** Requests whose client went away before the answer was sent (an aborted call), in order. */
  readonly aborted: ReceivedRequest[];
  /** Queues answers, served in order to the next requests (the default when no responder answers). */
  enqueue(...responses: ReplayedResponse[]): void;
  /** Answers computed per request (tried before the queue). */
  respondWith(responder: Responder | undefined): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function send(response: ServerResponse, answer: ReplayedResponse): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  response.writeHead(answer.status ?? 200, {
    'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  response.end(text);
}

/** Starts a protocol server on a free loopback port. */
export async function startProtocolServer(): Promise<ProtocolServer> {
  const queue: ReplayedResponse[] = [];
  const requests: ReceivedRequest[] = [];
  const aborted: ReceivedRequest[] = [];
  let responder: Responder | undefined;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const received: ReceivedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body: await readBody(request),
      };
      requests.push(received);
      response.once('close', () => {
        if (!response.writableFinished) aborted.push(received);
      });
      const answer = responder?.(received) ?? queue.shift();
      if (answer === undefined) {
        send(response, {
          status: 599,
          body: { error: { message: `protocol server: no answer queued for ${received.method} ${received.path}` } },
        });
        return;
      }
      if (answer.delayMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        // Not `request.destroyed`: a request whose body was read to its end is destroyed, its client still waiting.
        if (response.destroyed || request.socket.destroyed) return;
      }
      send(response, answer);
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    aborted,
    enqueue: (...responses) => void queue.push(...responses),
    respondWith: (next) => void (responder = next),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
