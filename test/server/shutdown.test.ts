/**
 * The graceful close of a running server, in process, with a real store, real clients and a slow
 * scripted model: a turn in flight finishes and is stored; past the grace period it is aborted (the
 * model call sees its client go), answers 503 `ABORTED` and stores nothing; event streams end; a
 * request that still arrives on an open connection answers 503 `CLOSED` with `Retry-After`.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServerApp } from '../../src/server/app.js';
import type { LoadedAgents } from '../../src/server/agents/load-agents.js';
import { startServer, type RunningServer } from '../../src/server/node.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { loadConfig, modelSpec } from './agent-configs.js';

let provider: ProtocolServer;
let agents: LoadedAgents;
let store: SessionStore;
let server: RunningServer;

beforeEach(async () => {
  provider = await startProtocolServer();
  provider.respondWith(scriptedProvider);
  agents = await loadConfig(provider.url, { agents: [{ id: 'chat', model: modelSpec('openaiChat') }] });
  store = memoryStore();
  server = await startServer({ store, port: 0, ...agents, log: () => undefined });
});
afterEach(async () => {
  await server.close(0);
  await store.close();
  await provider.close();
});

/** Sends a turn of `text` to session `id`. */
function turn(id: string, text: string): Promise<Response> {
  return fetch(`${server.url}/sessions/${id}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: text }),
  });
}

/** Resolves once `done` holds (fails after 5 s). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`still not so: ${done.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves once the model has been called `count` times in all. */
function modelCalls(count: number): Promise<void> {
  return until(() => provider.requests.length >= count);
}

describe('RunningServer.close', () => {
  it('lets a turn in flight finish: its answer arrives whole and is stored', async () => {
    const answer = turn('slow', 'slow 700 then answer');
    await modelCalls(1);
    const started = Date.now();
    const closed = server.close(10_000);
    // The listener is gone at once: a new connection is refused.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    const response = await answer;
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ reply: { content: 'echo: slow 700 then answer' } });
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await store.summary('slow')).toMatchObject({ messageCount: 2 });
    expect(provider.aborted).toEqual([]);
  });

  it('past the grace period aborts the turn and its model call, answers 503 ABORTED, and stores nothing', async () => {
    const answer = turn('overrun', 'slow 20000 never comes');
    await modelCalls(1);
    const started = Date.now();
    const closed = server.close(300);
    const response = await answer;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ code: 'ABORTED' });
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
    await until(() => provider.aborted.length === 1);
    expect(await store.get('overrun')).toBeUndefined();
  });

  it('a second close with a shorter grace period ends it sooner', async () => {
    const answer = turn('second', 'slow 20000 never comes');
    await modelCalls(1);
    const first = server.close(60_000);
    const second = server.close(0);
    expect(second).toBe(first);
    expect((await answer).status).toBe(503);
    await first;
    expect(await store.get('second')).toBeUndefined();
  });

  it('ends event streams, and closes at once when nothing else is in flight', async () => {
    const made = await fetch(`${server.url}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'watched' }),
    });
    expect(made.status).toBe(201);
    const stream = await fetch(`${server.url}/sessions/watched/events`);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const started = Date.now();
    await server.close(10_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    for (;;) if ((await reader.read()).done) break;
  });

  it('answers 503 CLOSED to a request that arrives on a connection still open', async () => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = JSON.stringify({ input: 'slow 500 then answer' });
    socket.write(
      `POST /sessions/piped/turns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await modelCalls(1);
    const closed = server.close(10_000);
    // The next request on the same connection, sent while the server closes.
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closed;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    expect(statuses).toEqual([201, 503]);
    const second = received.slice(received.lastIndexOf('HTTP/1.1 503'));
    expect(second).toMatch(/^retry-after: 1\r$/im);
    expect(second).toMatch(/^connection: close\r$/im);
    expect(second).toContain('"code":"CLOSED"');
    expect(await store.summary('piped')).toMatchObject({ messageCount: 2 });
  });
});

describe('createServerApp with an aborted signal', () => {
  it('answers every new request 503 CLOSED with Retry-After', async () => {
    const closing = new AbortController();
    closing.abort();
    const app = createServerApp({ store, signal: closing.signal, log: () => undefined });
    for (const path of ['/healthz', '/sessions', '/openapi.json']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toMatchObject({ code: 'CLOSED' });
    }
  });
});
