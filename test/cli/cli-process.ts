/**
 * The `chatstate` command under test: `runCli` runs it from `src/` in a CLI host process (one per
 * test file, one command after another); `runCliProcess` runs the built bin, `node
 * dist/cli/bin.js`, after `ensureBuilt` has built `dist/` when it is older than `src/` (one build at
 * a time across test files, under a lock).
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, type CommandRun } from '../support/run-command.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built bin. */
export const BIN = join(ROOT, 'dist', 'cli', 'bin.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(BIN).mtimeMs;
  } catch {
    return 0;
  }
}

const LOCK = join(tmpdir(), `chatstate-cli-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`);

/** Builds `dist/` with `tsc -p tsconfig.build.json` when a source is newer than the bin. */
export async function ensureBuilt(): Promise<void> {
  for (;;) {
    if (builtAt() >= newestMtime(join(ROOT, 'src'))) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test file is building: wait for it (a lock older than 5 minutes is a crashed build).
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 300_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // The lock went away meanwhile.
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      // tsc emits even when a file elsewhere has type errors (typecheck is its own step); the bin must exist after.
      const result = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      if (builtAt() === 0) throw new Error(`the build made no ${BIN}:\n${result.stdout}${result.stderr}`);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

/** What a run of the bin gave. */
export type CliResult = CommandRun;

/** Options of `runCli`. */
export interface RunOptions {
  /** Extra environment (the test's CHATSTATE_* variables are removed first). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed (stdin is empty otherwise). */
  readonly input?: string;
  readonly cwd?: string;
}

/** This process's environment without the variables that would steer the command (CHATSTATE_*, colors), plus `extra`. */
function commandEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith('CHATSTATE_') || key === 'NO_COLOR' || key === 'FORCE_COLOR') delete env[key];
  return Object.assign(env, extra);
}

/**
 * Runs `chatstate ...args` and collects its output and exit code: the command's `run` in this
 * test file's CLI host (`cli-host.mjs`, one process that runs one command after another), with the
 * given environment, stdin and working directory. Use `runCliProcess` where the process itself is
 * under test (its exit, signals, pipes, two commands at once).
 */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return cliHost().run({
    args: [...args],
    env: commandEnv(options.env),
    input: options.input ?? '',
    cwd: options.cwd ?? ROOT,
  });
}

/** Runs `node dist/cli/bin.js ...args` as a process of its own and collects its output and exit code. */
export function runCliProcess(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return runCommand(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: commandEnv(options.env),
    input: options.input,
  });
}

/** A command for the host. */
interface HostRequest {
  readonly args: string[];
  readonly env: Record<string, string | undefined>;
  readonly input: string;
  readonly cwd: string;
}

/** What the host answers: a result, or the stack of an error `run` let through (a bug). */
type HostReply = { readonly id: number; readonly crash?: string } & Partial<CliResult>;

/** The CLI host of this test file: started at the first command, again after one died. */
class CliHost {
  private readonly pending = new Map<number, { resolve(result: CliResult): void; reject(error: Error): void }>();
  private nextId = 0;
  private output = '';
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  exited = false;

  constructor() {
    this.child = fork(join(ROOT, 'test', 'cli', 'cli-host.mjs'), [], {
      cwd: ROOT,
      env: commandEnv(),
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // What a command writes to the process's own streams (not the io it was given) is a bug to show.
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.ready = new Promise((resolve, reject) => {
      this.child.once('message', () => resolve());
      this.child.once('exit', (code, signal) =>
        reject(new Error(`the CLI host exited before it was ready (${signal ?? code}):\n${this.output}`)),
      );
    });
    this.child.on('message', (reply: HostReply) => this.settle(reply));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      const error = new Error(`the CLI host died (${signal ?? code}) while running a command:\n${this.output}`);
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    });
    this.idle();
  }

  async run(request: HostRequest): Promise<CliResult> {
    await this.ready;
    const id = this.nextId++;
    return new Promise<CliResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.busy();
      this.child.send({ id, ...request });
    });
  }

  private settle(reply: HostReply): void {
    const waiting = this.pending.get(reply.id);
    if (waiting === undefined) return;
    this.pending.delete(reply.id);
    if (reply.crash !== undefined) waiting.reject(new Error(`chatstate threw out of run():\n${reply.crash}`));
    else waiting.resolve({ code: reply.code ?? null, stdout: reply.stdout ?? '', stderr: reply.stderr ?? '' });
    if (this.pending.size === 0) this.idle();
  }

  // An idle host must not keep the test process alive; a busy one must.
  private busy(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
  }
}

let host: CliHost | undefined;

function cliHost(): CliHost {
  if (host === undefined || host.exited) host = new CliHost();
  return host;
}
