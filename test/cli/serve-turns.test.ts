/**
 * `chatstate serve --agents FILE` as a real process (the built bin) over a file store, its agent's
 * model a slow scripted provider in the test process: SIGTERM during a turn lets the turn finish
 * (its answer arrives whole, it is stored) and the process exits 0; past `--grace-ms` the turn is
 * aborted (its model call too), stores nothing, and the process still exits 0. A bad agents file
 * stops `serve` before it listens, with the file and the path of the problem.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/stores/open-store.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { modelSpec, providerEnv } from '../server/agent-configs.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { ensureBuilt, runCli } from './cli-process.js';

beforeAll(ensureBuilt, 600_000);

let dir = '';
let provider: ProtocolServer;
let agentsFile = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-turns-'));
  provider = await startProtocolServer();
  provider.respondWith(scriptedProvider);
  agentsFile = join(dir, 'agents.json');
  await writeFile(agentsFile, JSON.stringify({ agents: [{ id: 'chat', model: modelSpec('openaiChat') }] }));
});
afterAll(async () => {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

/** Starts `chatstate serve ARGS` with the provider's variables. */
function serve(args: readonly string[]): Promise<ServeProcess> {
  return startServe(args, providerEnv(provider.url));
}

async function modelCalls(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (provider.requests.length < count) {
    if (Date.now() > deadline) throw new Error('the model was not called');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function turn(url: string, id: string, text: string): Promise<Response> {
  return fetch(`${url}/sessions/${id}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: text }),
  });
}

describe('chatstate serve --agents', () => {
  it('on SIGTERM finishes the turn in flight, stores it, and exits 0', async () => {
    const store = `file:${join(dir, 'finish')}`;
    const server = await serve(['--store', store, '--agents', agentsFile]);
    const calls = provider.requests.length;
    const answer = turn(server.url, 'trip', 'slow 1500 Lisbon in May?');
    await modelCalls(calls + 1);
    server.signal('SIGTERM');
    const response = await answer;
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ reply: { content: 'echo: slow 1500 Lisbon in May?' } });
    const { code, stderr } = await server.exit();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('agents: chat');
    expect(stderr).toContain('SIGTERM: finishing requests in flight');
    const reopened = await openStore(store);
    try {
      const session = await reopened.load('trip');
      expect(session.messages.map((message) => message.content)).toEqual([
        'slow 1500 Lisbon in May?',
        'echo: slow 1500 Lisbon in May?',
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('past --grace-ms aborts the turn and its model call, stores nothing, and exits 0', async () => {
    const store = `file:${join(dir, 'overrun')}`;
    const server = await serve(['--store', store, '--agents', agentsFile, '--grace-ms', '300']);
    const calls = provider.requests.length;
    const aborted = provider.aborted.length;
    const answer = turn(server.url, 'trip', 'slow 30000 never answered');
    await modelCalls(calls + 1);
    const started = Date.now();
    server.signal('SIGTERM');
    const response = await answer;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'ABORTED' });
    const { code, stderr } = await server.exit();
    expect(code, stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(provider.aborted.length).toBe(aborted + 1);
    const reopened = await openStore(store);
    try {
      expect(await reopened.get('trip')).toBeUndefined();
    } finally {
      await reopened.close();
    }
  });

  it('a second signal aborts the turns in flight at once', async () => {
    const server = await serve(['--store', `file:${join(dir, 'twice')}`, '--agents', agentsFile]);
    const calls = provider.requests.length;
    const answer = turn(server.url, 'trip', 'slow 30000 never answered');
    await modelCalls(calls + 1);
    server.signal('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.signal('SIGINT');
    expect((await answer).status).toBe(503);
    const { code, stderr } = await server.exit();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('SIGINT again: aborting the turns in flight');
  });

  it('refuses a bad agents file before listening, naming the file and the problem', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ agents: [{ id: 'x', model: { provider: 'mistral', name: 'm' } }] }));
    const refused = await runCli(['serve', '--store', 'memory:', '--port', '0', '--agents', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`^error INVALID_ARGUMENT: The agents file ${bad}: agents\\[0\\]\\.model\\.provider: Invalid option`),
    );
    const noKey = await runCli(['serve', '--store', 'memory:', '--port', '0', '--agents', agentsFile]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('the environment variable OPENAI_API_KEY (the API key) is not set');
  });
});
