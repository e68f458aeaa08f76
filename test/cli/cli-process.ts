/**
 * The built `chatstate` bin as a real process: builds `dist/` once when it is older than `src/`
 * (one build at a time across test files, under a lock), then runs `node dist/cli/bin.js`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of `runCli`. */
export interface RunOptions {
  /** Extra environment (the test's CHATSTATE_* variables are removed first). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed (stdin is empty otherwise). */
  readonly input?: string;
  readonly cwd?: string;
}

/** Runs `node dist/cli/bin.js ...args` and collects its output and exit code. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith('CHATSTATE_') || key === 'NO_COLOR' || key === 'FORCE_COLOR') delete env[key];
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
