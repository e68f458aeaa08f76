/**
 * `chatstate keys` and `chatstate serve` as real processes: a key made by `keys add` opens its
 * tenant on a served store; no key is a 401; SIGTERM stops the server with exit 0; without keys
 * the server refuses a non-loopback address (usage error, exit 2); `--metrics-key` guards /metrics; the web session browser is
 * served at / (with prices and a context window), or not with --no-web.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtWeb } from '../web/browser.js';
import { startServe } from '../support/serve-process.js';
import { ensureBuilt, runCli } from './cli-process.js';

beforeAll(ensureBuilt, 600_000);
// The web session browser the bin serves at / (built by npm run build; here when it is stale).
beforeAll(builtWeb, 120_000);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-serve-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Starts `chatstate serve ARGS`; resolves with its URL and a stop that sends SIGTERM and waits for the exit. */
async function serve(
  args: readonly string[],
): Promise<{ url: string; stop: () => Promise<{ code: number | null; stderr: string }> }> {
  const server = await startServe(args);
  return {
    url: server.url,
    stop: () => {
      server.signal('SIGTERM');
      return server.exit();
    },
  };
}

describe('chatstate keys and serve', () => {
  it('keys add prints a secret once and keeps only its hash; serve answers that key with its tenant only', async () => {
    const file = join(dir, 'keys.json');
    const store = `file:${join(dir, 'store')}`;
    const added = await runCli(['keys', 'add', '--file', file, '--tenant', 'acme', '--role', 'admin', '--id', 'ops']);
    expect(added.code).toBe(0);
    const secret = added.stdout.trim();
    expect(secret).toMatch(/^csk_[A-Za-z0-9_-]{40,}$/);
    const saved = await readFile(file, 'utf8');
    expect(saved).not.toContain(secret);
    expect(JSON.parse(saved)).toMatchObject({ keys: [{ id: 'ops', tenant: 'acme', role: 'admin' }] });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await runCli(['keys', 'list', '--file', file])).stdout).toBe('ops  acme  admin\n');

    const server = await serve(['--store', store, '--keys', file]);
    try {
      const created = await fetch(`${server.url}/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'hello', messages: [{ role: 'user', content: 'served' }] }),
      });
      expect(created.status).toBe(201);
      expect((await fetch(`${server.url}/sessions`)).status).toBe(401);
      const openapi = await fetch(`${server.url}/openapi.json`);
      expect(((await openapi.json()) as { openapi: string }).openapi).toBe('3.1.0');
    } finally {
      const stopped = await server.stop();
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toContain('SIGTERM: finishing requests in flight');
      // A server writes: the store it was given did not exist, so it was started, and that is said.
      expect(stopped.stderr).toContain(`new store at ${join(dir, 'store')} (it did not exist)\n`);
    }
    // The tenant's session is in the store under the tenant's namespace.
    expect((await runCli(['list', '--store', store, '--json'])).stdout).toContain('"id":"acme.hello"');
    expect((await runCli(['keys', 'remove', 'ops', '--file', file])).code).toBe(0);
    expect((await runCli(['keys', 'remove', 'ops', '--file', file])).code).toBe(1);
  });

  it('without keys serves the whole store on loopback, and refuses any other address', async () => {
    const store = `file:${join(dir, 'open-store')}`;
    await runCli(['import', '-', '--from', 'openaiChat', '--id', 'local-1', '--store', store], {
      input: JSON.stringify([{ role: 'user', content: 'hi' }]),
    });
    const metricsKey = 'scraper-key-0123456789';
    const server = await serve(['--store', store, '--metrics-key', metricsKey]);
    try {
      const read = await fetch(`${server.url}/sessions/local-1`);
      expect(read.status).toBe(200);
      expect(((await read.json()) as { id: string }).id).toBe('local-1');
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsKey}` } });
      expect(metrics.status).toBe(200);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    const refused = await runCli(['serve', '--store', store, '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error INVALID_ARGUMENT: Refusing to listen on 0\.0\.0\.0 without API keys/);
  });

  it('serves the web session browser at / with prices and a context window, or not with --no-web', async () => {
    const store = `file:${join(dir, 'web-store')}`;
    const prices = join(dir, 'prices.json');
    await writeFile(prices, JSON.stringify({ currency: 'EUR', models: { '*': { input: 1, output: 2 } } }));
    const server = await serve(['--store', store, '--prices', prices, '--context-window', '4096']);
    try {
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/assets\/index-[^"]+\.js">/);
      await fetch(`${server.url}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'priced', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const stats = (await (await fetch(`${server.url}/sessions/priced/stats`)).json()) as {
        cost?: { currency: string };
      };
      expect(stats.cost?.currency).toBe('EUR');
      const timeline = (await (await fetch(`${server.url}/sessions/priced/timeline`)).json()) as {
        contextWindow: number;
      };
      expect(timeline.contextWindow).toBe(4096);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    const bare = await serve(['--store', store, '--no-web']);
    try {
      expect((await fetch(`${bare.url}/`)).status).toBe(404);
    } finally {
      expect((await bare.stop()).code).toBe(0);
    }
  });

  it.each([
    ['a prices file that is missing', 'no-such-prices.json', /^error INVALID_ARGUMENT: Cannot read the prices file/],
    ['a prices file that is not JSON', 'not-json.json', /^error INVALID_ARGUMENT: The prices file .* is not JSON/],
    [
      'prices that are not prices',
      'bad-prices.json',
      /^error INVALID_ARGUMENT: Invalid prices: models must be an object/,
    ],
  ])('refuses %s (usage error, exit 2)', async (_, name, message) => {
    await writeFile(join(dir, 'not-json.json'), '{ nope');
    await writeFile(join(dir, 'bad-prices.json'), JSON.stringify({ models: [] }));
    const refused = await runCli(['serve', '--store', 'memory:', '--port', '0', '--prices', join(dir, name)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
  });
});
