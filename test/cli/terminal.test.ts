/**
 * The command on a terminal, through a pseudo-terminal (`script` from util-linux): colors (never
 * with NO_COLOR), the progress bar on stderr (never with --quiet), and delete's question.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runCli } from './cli-process.js';
import { seed } from './seed.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const ESC = '\u001b[';

let dir = '';
let url = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-tty-'));
  url = `file:${join(dir, 'store')}`;
  await seed(url);
  await ensureBuilt();
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function quoted(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Runs the bin on a pseudo-terminal (stdin, stdout and stderr all the terminal); `input` is typed into it. */
function onTerminal(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color' };
  for (const key of Object.keys(env)) if (key.startsWith('CHATSTATE_') || key === 'NO_COLOR') delete env[key];
  Object.assign(env, options.env);
  const command = [process.execPath, BIN, ...args].map(quoted).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    // Typed once the question is up; the terminal echoes it.
    if (options.input !== undefined) setTimeout(() => child.stdin.write(options.input), 1500);
    else child.stdin.end();
  });
}

describe.skipIf(!hasScript)('chatstate on a terminal (skipped without util-linux script: no pseudo-terminal)', () => {
  it('colors the table on a terminal, never with NO_COLOR or when piped', async () => {
    const colored = await onTerminal(['list', '--store', url]);
    expect(colored.code).toBe(0);
    expect(colored.output).toContain(`${ESC}1mID`);
    const plain = await onTerminal(['list', '--store', url], { env: { NO_COLOR: '1' } });
    expect(plain.code).toBe(0);
    expect(plain.output).toMatch(/^ID +USER/m);
    expect(plain.output).not.toContain(ESC);
    expect((await runCli(['list', '--store', url])).stdout).not.toContain(ESC);
  });

  it('shows a progress bar with rate and ETA for long work, none with --quiet or when piped', async () => {
    const shown = await onTerminal(['stats', '--all', '--store', url]);
    expect(shown.code).toBe(0);
    expect(shown.output).toMatch(/4\/4 sessions · [\d.]+ sessions\/s · ETA/);
    expect(shown.output).toMatch(/sessions +4/);
    const quiet = await onTerminal(['stats', '--all', '--store', url, '--quiet']);
    expect(quiet.output).not.toContain('sessions/s');
    expect(quiet.output).toMatch(/sessions +4/);
    expect((await runCli(['stats', '--all', '--store', url])).stderr).toBe('');
  });

  it('delete asks on a terminal and deletes only on yes', async () => {
    const declined = await onTerminal(['delete', 'chain-a', '--store', url], { input: 'n\r' });
    expect(declined.output).toContain(`Delete session chain-a from ${url}? [y/N]`);
    expect(declined.output).toContain('nothing deleted');
    expect(declined.code).toBe(1);
    const accepted = await onTerminal(['delete', 'chain-a', '--store', url], { input: 'y\r' });
    expect(accepted.code).toBe(0);
    expect(accepted.output).toContain('deleted chain-a');
    expect((await runCli(['show', 'chain-a', '--store', url])).code).toBe(1);
  });
});
