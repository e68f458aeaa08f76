/**
 * `chatstate serve` as a real child process (the built bin), for the tests and benches that run
 * several servers on one database: started on a free port, found by the URL it prints, stopped
 * with SIGTERM (it finishes what is in flight and closes its store).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ensureBuilt } from '../cli/cli-process.js';

/** A running `chatstate serve`. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What it wrote on stderr so far (its notes; request logs go to stdout, which is dropped). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `chatstate serve --port 0 ...args` (building `dist/` first if needed); resolves once it listens. */
export async function startServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  await ensureBuilt();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in 30 s: ${stderr}`));
    }, 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /on (http:\/\/\S+)/.exec(stderr);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
