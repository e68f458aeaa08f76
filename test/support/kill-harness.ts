/**
 * The kill side of the crash tests: a seeded random source, and a runner that starts a child
 * writer and SIGKILLs it at a chosen moment, returning what the child acknowledged before it died.
 * The child protocol: `READY` once open, then `A <ids…>` / `S <ids…>` after each append / save
 * resolved, `T <removed> <ids…>` after a tail replace that removed message `<removed>` and added
 * `<ids…>`, `ERR …` for an error it survived. Only complete lines count: a line cut by the kill
 * was never acknowledged.
 */
import { spawn } from 'node:child_process';
import { bundledScript } from './bundled-script.js';

export { seededRandom } from './seeded-random.js';

/** Whether `line` acknowledges a write. */
function isWrite(line: string): boolean {
  return line.startsWith('A ') || line.startsWith('S ') || line.startsWith('T ');
}

/** Complete `A`/`S`/`T` lines in `stdout` so far. */
function acknowledgedLines(stdout: string): number {
  let count = 0;
  for (const line of stdout.split('\n').slice(0, -1)) if (isWrite(line)) count += 1;
  return count;
}

/** What one killed child did. */
export interface ChildRun {
  /** Ids whose write was acknowledged (printed after the promise resolved). */
  readonly acknowledged: string[];
  /** Ids an acknowledged tail replace removed (`T` lines): they must be gone. */
  readonly removed: string[];
  readonly errors: string[];
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs `script` (TypeScript, bundled once by `bundledScript`) with `args` and kills it `delayMs` after it printed
 * READY and then `afterWrites` acknowledged writes, or `delayMs` after it started when `early`
 * (then kills land while the store is being opened). Counting writes, not only time, makes a run
 * do the same work on a loaded machine as on an idle one.
 */
export function runKilledChild(
  script: string,
  args: readonly string[],
  delayMs: number,
  early: boolean,
  afterWrites = 0,
): Promise<ChildRun> {
  return bundledScript(script).then((bundle) => killedRun(bundle, args, delayMs, early, afterWrites));
}

function killedRun(
  bundle: string,
  args: readonly string[],
  delayMs: number,
  early: boolean,
  afterWrites: number,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    if (early) kill();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.startsWith('READY\n') && acknowledgedLines(stdout) >= afterWrites) kill();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').slice(0, -1);
      resolve({
        acknowledged: lines
          .filter(isWrite)
          // A `T` line's first id is the message it removed, not one it wrote.
          .flatMap((line) =>
            line
              .slice(2)
              .split(' ')
              .filter(Boolean)
              .slice(line.startsWith('T ') ? 1 : 0),
          ),
        removed: lines.filter((line) => line.startsWith('T ')).map((line) => line.split(' ')[1] as string),
        errors: lines.filter((line) => line.startsWith('ERR ')),
        signal,
        code,
        stderr,
      });
    });
  });
}
