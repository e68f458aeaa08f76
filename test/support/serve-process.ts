/**
 * `chatstate serve` as a real child process (the built bin), for the tests and benches that run
 * it: started on a free port, found by the URL it prints, stopped with SIGTERM (it finishes what
 * is in flight and closes its store) or signalled and awaited as a test needs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ensureBuilt } from '../cli/cli-process.js';

/** A running `chatstate serve`. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What it wrote on stderr so far (its notes; request logs go to stdout, which is dropped). */
  stderr(): string;
  /** Sends `signal` (SIGTERM: finish and exit; a second one: abort what runs). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when it has exited: its exit code and everything it wrote on stderr. */
  exit(): Promise<{ code: number | null; stderr: string }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `chatstate serve --port 0 ...args` (building `dist/` first if needed); resolves once it
 * listens. Its environment is this process's without `CHATSTATE_*` (a developer's own settings
 * must not steer a test), plus `env`.
 */
export async function startServe(args: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  await ensureBuilt();
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('CHATSTATE_')) inherited[name] = value;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...inherited, ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in 30 s: ${stderr}`));
    }, 30_000);
    const look = (): void => {
      const found = /on (http:\/\/\S+)/.exec(stderr);
      if (found === null) return;
      clearTimeout(timer);
      child.stderr?.off('data', look);
      resolve(found[1] as string);
    };
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    signal: (signal) => void child.kill(signal),
    exit: async () => ({ code: await exited, stderr }),
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
