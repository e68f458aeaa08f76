/**
 * `chatstate stats` shows the usage the model calls measured and the cached share of their input,
 * as text and as `--json`, for one session (by model) and summed over a store (`--all`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { runCli } from './cli-process.js';

let dir = '';
let sessionFile = '';
let storeUrl = '';

function cachedSession(id: string): Session {
  return Session.create({ id }).append(
    Message.user('Summarise the contract.'),
    Message.assistant('It renews yearly.', {
      metadata: {
        usage: {
          model: 'claude-sonnet-4-20250514',
          inputTokens: 2000,
          outputTokens: 20,
          cachedInputTokens: 1500,
          cacheWriteInputTokens: 400,
        },
      },
    }),
    Message.user('When?'),
    Message.assistant('On 1 March.', {
      metadata: { usage: { model: 'gpt-4.1', inputTokens: 1000, outputTokens: 10, cachedInputTokens: 0 } },
    }),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-stats-usage-'));
  sessionFile = join(dir, 'session.json');
  await writeFile(sessionFile, JSON.stringify(cachedSession('usage-1')));
  storeUrl = `sqlite:${join(dir, 'chat.db')}`;
  const store = await openStore(storeUrl);
  try {
    await store.save(cachedSession('usage-a'));
    await store.save(cachedSession('usage-b'));
    await store.save(Session.create({ id: 'no-calls' }).append(Message.user('Hello?')));
  } finally {
    await store.close();
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('stats: measured usage and the cached share', () => {
  it('prints the calls, input, cached input with its share, cache writes and output, by model', async () => {
    const result = await runCli(['stats', sessionFile]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'usage      2 calls, input 3000 (cached 1500, 50.0%; cache writes 400), output 30\n' +
        '  claude-sonnet-4-20250514 1 call, input 2000 (cached 1500, 75.0%; cache writes 400), output 20\n' +
        '  gpt-4.1                  1 call, input 1000 (cached 0, 0.0%; cache writes 0), output 10\n',
    );
  });

  it('gives the same counts and cachedShare with --json', async () => {
    const result = await runCli(['stats', sessionFile, '--json']);
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout) as { usage: Record<string, unknown> };
    expect(stats.usage).toEqual({
      calls: 2,
      inputTokens: 3000,
      outputTokens: 30,
      cachedInputTokens: 1500,
      cacheWriteInputTokens: 400,
      cachedShare: 0.5,
      byModel: {
        'claude-sonnet-4-20250514': {
          calls: 1,
          inputTokens: 2000,
          outputTokens: 20,
          cachedInputTokens: 1500,
          cacheWriteInputTokens: 400,
          cachedShare: 0.75,
        },
        'gpt-4.1': {
          calls: 1,
          inputTokens: 1000,
          outputTokens: 10,
          cachedInputTokens: 0,
          cacheWriteInputTokens: 0,
          cachedShare: 0,
        },
      },
    });
  });

  it('sums the usage of every session with --all, text and --json; no input means no share', async () => {
    const text = await runCli(['stats', '--all', '--store', storeUrl]);
    expect(text).toMatchObject({ code: 0 });
    expect(text.stdout).toContain('usage      4 calls, input 6000 (cached 3000, 50.0%; cache writes 800), output 60\n');
    const json = JSON.parse((await runCli(['stats', '--all', '--store', storeUrl, '--json'])).stdout) as {
      usage: Record<string, unknown>;
    };
    expect(json.usage).toEqual({
      calls: 4,
      inputTokens: 6000,
      outputTokens: 60,
      cachedInputTokens: 3000,
      cacheWriteInputTokens: 800,
      cachedShare: 0.5,
    });

    const none = await runCli(['stats', 'no-calls', '--store', storeUrl]);
    expect(none.stdout).toContain('usage      0 calls, input 0 (cached 0, –; cache writes 0), output 0\n');
    const noneJson = JSON.parse((await runCli(['stats', 'no-calls', '--store', storeUrl, '--json'])).stdout) as {
      usage: Record<string, unknown>;
    };
    expect(noneJson.usage).not.toHaveProperty('cachedShare');
  });
});
