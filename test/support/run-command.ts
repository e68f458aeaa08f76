/** Runs a command as a process of its own and collects its exit code and output: one owner for the tests that need that. */
import { spawn } from 'node:child_process';

/** What a finished command left: its exit code (null when a signal ended it) and its output. */
export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to run it: where, with which environment, and what it reads on stdin (nothing by default). */
export interface CommandOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly input?: string;
}

/** Runs `command` with `args` until it exits; never rejects for a failing exit code, only when it cannot start. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: CommandOptions = {},
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command that exits before reading its input must not fail the test with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** This process's environment without the variables whose names start with one of `prefixes` or are in `names`. */
export function environmentWithout(prefixes: readonly string[], names: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env))
    if (names.includes(key) || prefixes.some((prefix) => key.startsWith(prefix))) delete env[key];
  return env;
}
