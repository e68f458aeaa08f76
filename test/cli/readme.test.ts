/**
 * The README's "The chatstate command" section is commands a user will paste: its shell block runs
 * as written (bash, `set -e`) after `npm start`'s example filled a store, with `npx chatstate` the
 * built bin and `npm start` the example, and every command exits 0.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkLog } from '../../src/session/fork-log.js';
import { openStore } from '../../src/stores/open-store.js';
import { BIN, ROOT, ensureBuilt } from './cli-process.js';

let cwd = '';

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'chatstate-cli-readme-'));
  await ensureBuilt();
}, 600_000);
afterAll(() => rm(cwd, { recursive: true, force: true }));

/** The first `sh` block after the heading `## The chatstate command`. */
async function shellBlock(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## The chatstate command\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined || !readme.includes('\n## The chatstate command\n'))
    throw new Error('README has no "## The chatstate command" section with a sh block');
  return block;
}

function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('CHATSTATE_')) delete env[key];
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README: the chatstate command', () => {
  it('runs its shell block as written, every command exiting 0', async () => {
    const block = await shellBlock();
    const prelude = [
      'set -eE -o pipefail',
      // Which line failed, for the assertion message.
      `trap 'echo "README command failed ($?): $BASH_COMMAND" >&2' ERR`,
      `npm() { if [ "$1" = start ]; then node ${JSON.stringify(join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'))} ${JSON.stringify(join(ROOT, 'examples', 'agent-conversation.ts'))} > /dev/null; else return 64; fi; }`,
      `npx() { if [ "$1" = chatstate ]; then shift; node ${JSON.stringify(BIN)} "$@"; else return 64; fi; }`,
    ].join('\n');
    const result = await bash(`${prelude}\n${block}`);
    expect(result.stderr).not.toContain('README command failed');
    expect(result.code).toBe(0);
    // What the commands printed, in order.
    expect(result.stdout).toMatch(/^ID +USER +AGENT/m);
    expect(result.stdout).toMatch(/^session trip-lisbon +user demo-user/m);
    expect(result.stdout).toMatch(/^valid$/m);
    expect(result.stdout).toMatch(/^tool calls \d+, results \d+$/m);
    expect(result.stdout).toContain('{"key":"home-airport","value":"LIS"}');
    expect(result.stdout).toMatch(/^trip-lisbon: would compact with slidingWindow/m);
    expect(result.stdout).toMatch(/^trip-lisbon-b$/m);
    expect(result.stdout).toMatch(/^deleted trip-lisbon-b$/m);
    expect(result.stdout).toMatch(/^session trip-rome /m);
    expect(JSON.parse(await readFile(join(cwd, 'request.json'), 'utf8'))).toHaveProperty('messages');
    // The fork the block made and deleted is not left in its source's list of forks (issue 21).
    const store = await openStore(`file:${join(cwd, '.chatstate')}`);
    try {
      expect(forkLog((await store.load('trip-lisbon')).metadata).map((entry) => entry.sessionId)).not.toContain(
        'trip-lisbon-b',
      );
    } finally {
      await store.close();
    }
  });
});
