/**
 * A request body the server cannot read — malformed chunked encoding, or a client that hangs up
 * mid-body — is the client's fault: logged and counted as a 400, never as a 500 with a stack, and
 * nothing is written.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { startTestServer, type TestServer } from './server-harness.js';

let store: SessionStore;
let server: TestServer;

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store, { withKeys: false });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

/** Sends `raw` on a new connection and gives what came back once the server closed it (or 2 s passed). */
function sendRaw(raw: string, { hangUp = false } = {}): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(raw);
      // A client that hangs up mid-body: the server sees the request stream end early.
      if (hangUp) setTimeout(() => socket.destroy(), 50);
    });
    const timer = setTimeout(() => socket.destroy(), 2000);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

/** Waits until the request log has a line for a request to `path`, and gives the lines since `from`. */
async function requestLines(from: number, path: string) {
  for (let i = 0; i < 100; i++) {
    const lines = server.logs.slice(from);
    if (lines.some((line) => line.path === path && line.status !== undefined)) return lines;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log line for ${path}`);
}

async function metricsText(): Promise<string> {
  const response = await fetch(`${server.url}/metrics`);
  return response.text();
}

describe('an unreadable request body', () => {
  it.each([
    {
      name: 'a malformed chunk',
      raw: 'POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"id"\r\nZZ\r\nbad\r\n',
      hangUp: false,
    },
    {
      name: 'a client that hangs up mid-body',
      raw: 'POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"id":"half',
      hangUp: true,
    },
  ])('is a 400 in the log and the metrics, not a 500, for $name', async ({ raw, hangUp }) => {
    const before = (await metricsText()).match(/status="500"/g)?.length ?? 0;
    const from = server.logs.length;
    await sendRaw(raw, { hangUp });
    const lines = await requestLines(from, '/sessions');
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.find((line) => line.path === '/sessions')).toMatchObject({ method: 'POST', status: 400 });
    const metrics = await metricsText();
    expect(metrics.match(/status="500"/g)?.length ?? 0).toBe(before);
    expect(metrics).toMatch(/status="400"/);
    expect(await store.list()).toEqual([]);
  });
});
