/**
 * Runs `append-child` processes against one store and collects what each did. Children open the
 * store, report ready, and start together on one signal, so their appends really overlap.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';
import type { SessionStoreOptions } from '../store/session-store.js';

/** One append a child makes: messages by id, optionally compare-and-append. */
export interface ChildAppend {
  readonly ids: readonly string[];
  readonly expectedVersion?: number;
}

/** What one child process does. */
export interface ChildPlan {
  readonly url: string;
  readonly options?: SessionStoreOptions;
  /** Modules the child imports before it opens `url` (their `registerStore` calls register its scheme). */
  readonly register: readonly string[];
  readonly sessionId: string;
  /** Made one after the other, in order. */
  readonly appends: readonly ChildAppend[];
}

/** The outcome of one `ChildAppend`. */
export interface ChildAppendOutcome {
  readonly appended: readonly string[];
  readonly duplicates: readonly string[];
  /** True when the append failed with `CONFLICT` (any other failure fails the child). */
  readonly conflict: boolean;
}

/** What one child reports. */
export interface ChildReport {
  readonly outcomes: readonly ChildAppendOutcome[];
}

/** Line a child prints once its store is open. */
export const READY = 'ready';
/** Prefix of the line with a child's report. */
export const REPORT = 'report:';

/** A hang guard, not a speed limit: a child that neither finishes nor fails is killed after this. */
const DEADLINE_MS = 120_000;

/**
 * How to start the child: from TypeScript sources through tsx, from the build with plain Node —
 * through tsx too when a module it must import is TypeScript.
 */
function childCommand(register: readonly string[]): { script: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const script = fileURLToPath(new URL(fromSource ? './append-child.ts' : './append-child.js', import.meta.url));
  if (!fromSource && !register.some((specifier) => /\.[mc]?ts$/.test(specifier))) return { script, execArgv: [] };
  let loader = 'tsx';
  try {
    loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    // Left to Node's own resolution from the working directory.
  }
  return { script, execArgv: ['--import', loader] };
}

interface Running {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  readonly done: Promise<ChildReport>;
}

function start(plan: ChildPlan, index: number): Running {
  const { script, execArgv } = childCommand(plan.register);
  const argument = serialize(plan).toString('base64');
  const child = spawn(process.execPath, [...execArgv, script, argument], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.split('\n').includes(READY)) markReady();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<ChildReport>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(REPORT));
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice(REPORT.length)) as ChildReport);
      else
        reject(
          new Error(
            `child ${index} exited with ${signal ?? `code ${String(code)}`}: ${stderr.trim() || stdout.trim() || 'no output'}`,
          ),
        );
    });
  });
  // Once one child fails the others are killed; their failures are expected, not unhandled.
  done.catch(() => undefined);
  // A child that dies before it is ready must not leave the others waiting for it.
  return { process: child, ready: Promise.race([ready, done.then(() => undefined)]), done };
}

/** Starts one child per plan, lets them all go at once, and returns their reports in plan order. */
export async function runChildren(plans: readonly ChildPlan[]): Promise<ChildReport[]> {
  const running = plans.map((plan, index) => start(plan, index));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`children did not finish within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    await Promise.race([Promise.all(running.map((child) => child.ready)), deadline]);
    for (const child of running) child.process.stdin?.end('go\n');
    return await Promise.race([Promise.all(running.map((child) => child.done)), deadline]);
  } finally {
    clearTimeout(timer);
    // Only the children started here, by handle: a failed run leaves no process behind.
    for (const child of running)
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  }
}
