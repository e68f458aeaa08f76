/**
 * `chatstate show` of a LangGraph thread (built with LangGraph's own APIs: turns, a fork from an
 * earlier checkpoint, an edit by message id): the thread at its newest checkpoint, as `getState`
 * gives it, with a header that says so and what the conversation holds beside it; `--log` the
 * conversation as stored, `--checkpoint` an older checkpoint, `--checkpoints` the list, `--json`
 * the view. Also with every `@langchain/*` package hidden: the CLI never needs LangGraph.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/stores/open-store.js';
import { buildForkedThread, type ForkedThread } from '../adapters/langgraph/forked-thread.js';
import { ROOT, runCli } from './cli-process.js';

let dir = '';
const urls = { sqlite: '', file: '' };
const threads: Partial<Record<keyof typeof urls, ForkedThread>> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-show-thread-'));
  urls.sqlite = `sqlite:${join(dir, 'graph.db')}`;
  urls.file = `file:${join(dir, 'files')}`;
  for (const name of ['sqlite', 'file'] as const) {
    const store = await openStore(urls[name]);
    try {
      threads[name] = await buildForkedThread(store);
    } finally {
      await store.close();
    }
  }
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The transcript's message lines: their text after the category/role column. */
function entryTexts(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => /^#\d+\s+\w+\/\w+/.test(line))
    .map((line) => line.replace(/^#\d+\s+\S+\s+/, ''));
}

describe('show: a LangGraph thread', () => {
  it('shows the thread at its newest checkpoint, as getState holds it, and says what the log holds beside', async () => {
    const thread = threads.sqlite as ForkedThread;
    const result = await runCli(['show', thread.conversation, '--store', urls.sqlite]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      `LangGraph thread forked-1 at checkpoint ${thread.state.checkpointId} (the newest; step 8, loop, 6 messages)`,
    );
    expect(lines[1]).toBe(
      `6 messages; the conversation ${thread.conversation} holds 11, 5 of them not in this checkpoint`,
    );
    expect(result.stdout).toContain('replaced: #1 by #9\n');
    expect(result.stdout).toContain(`other branches: ${thread.firstBranch.checkpointId} (step 7, loop, 6 messages)`);
    expect(entryTexts(result.stdout)).toEqual(thread.state.messages.map((message) => String(message.content)));

    // Its checkpoint log's id shows the same.
    const viaLog = await runCli(['show', thread.log, '--store', urls.sqlite]);
    expect(viaLog.stdout).toBe(result.stdout);
  });

  it('--log shows the conversation as stored, --checkpoint an older checkpoint, --checkpoints the list', async () => {
    const thread = threads.sqlite as ForkedThread;
    const log = await runCli(['show', thread.conversation, '--log', '--store', urls.sqlite]);
    expect(log).toMatchObject({ code: 0, stderr: '' });
    expect(log.stdout.split('\n')[0]).toContain(`session ${thread.conversation}`);
    expect(log.stdout.split('\n')[0]).toContain('11 messages');
    expect(entryTexts(log.stdout)).toContain('Three days in May');
    expect(entryTexts(log.stdout)).toContain('Plan a trip to Lisbon');

    const older = await runCli([
      'show',
      thread.conversation,
      '--checkpoint',
      thread.firstBranch.checkpointId,
      '--store',
      urls.sqlite,
    ]);
    expect(older).toMatchObject({ code: 0, stderr: '' });
    expect(older.stdout.split('\n')[0]).toContain(`(not the newest: ${thread.state.checkpointId}; step 7`);
    expect(entryTexts(older.stdout)).toEqual(thread.firstBranch.messages.map((message) => String(message.content)));

    const listed = await runCli(['show', thread.conversation, '--checkpoints', '--store', urls.sqlite]);
    const rows = listed.stdout.split('\n').filter((line) => /^ {2}[* ] \S+ {2}/.test(line));
    expect(rows).toHaveLength(thread.checkpointCount);
    expect(rows[0]).toMatch(new RegExp(`^ {2}\\* ${thread.state.checkpointId} .*\\(shown, branch tip\\)$`));
    expect(rows.find((row) => row.includes(thread.firstBranch.checkpointId))).toMatch(/\(branch tip\)$/);
    expect(rows.find((row) => row.includes(thread.forkPoint.checkpointId))).toMatch(/\(ancestor\)$/);

    const missing = await runCli(['show', thread.conversation, '--checkpoint', 'nope', '--store', urls.sqlite]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No checkpoint nope');
    const both = await runCli(['show', thread.conversation, '--log', '--checkpoint', 'x', '--store', urls.sqlite]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--log and --checkpoint');
  });

  it('--json gives the view, --tail a part of it, --format the thread as a provider request', async () => {
    const thread = threads.sqlite as ForkedThread;
    const json = await runCli(['show', thread.conversation, '--json', '--store', urls.sqlite]);
    const body = JSON.parse(json.stdout) as {
      thread: {
        messages: Array<{ content: unknown }>;
        checkpoint: { id: string };
        logCount: number;
        elsewhere: { count: number; messages: Array<{ kind: string }> };
      };
    };
    expect(body.thread.messages.map((message) => message.content)).toEqual(
      thread.state.messages.map((message) => message.content),
    );
    expect(body.thread).toMatchObject({ checkpoint: { id: thread.state.checkpointId }, logCount: 11 });
    expect(body.thread.elsewhere.count).toBe(5);

    const tail = await runCli(['show', thread.conversation, '--tail', '2', '--store', urls.sqlite]);
    expect(tail.stdout.split('\n')[1]).toContain('6 messages (showing 2)');
    expect(entryTexts(tail.stdout)).toEqual(['Four days, by train', 'You said: Four days, by train']);

    const wire = await runCli(['show', thread.conversation, '--format', 'openaiChat', '--store', urls.sqlite]);
    const request = JSON.parse(wire.stdout) as { messages: Array<{ content: unknown }> };
    expect(request.messages.map((message) => message.content)).toEqual(
      thread.state.messages.map((message) => message.content),
    );
  });

  it('shows the thread with every @langchain package hidden (optional peers), on the file store', () => {
    const thread = threads.file as ForkedThread;
    const child = fileURLToPath(new URL('../support/langchain-hidden-cli.ts', import.meta.url));
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', child, 'show', thread.conversation, '--store', urls.file],
      { cwd: ROOT, encoding: 'utf8' },
    );
    const answer = JSON.parse(result.stdout || '{}') as { code?: number; stdout?: string; stderr?: string };
    expect(answer, result.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(answer.stdout?.split('\n')[0]).toContain(
      `LangGraph thread forked-1 at checkpoint ${thread.state.checkpointId}`,
    );
    expect(entryTexts(answer.stdout ?? '')).toEqual(thread.state.messages.map((message) => String(message.content)));
  });
});
