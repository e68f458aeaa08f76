/**
 * Runs `append-child` processes against one store and collects what each did. Children open the
 * store, report ready, and start together on one signal, so their appends really overlap; then
 * they wait for the next plan, so the runs of a suite share their processes.
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

/** Prefix of the line that gives a child its next plan (v8-serialized, base64). */
export const PLAN = 'plan:';
/** The line that lets a ready child start its appends. */
export const GO = 'go';
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

/** A child process that runs plans, one after the other, until its stdin ends. */
class AppendWorker {
  private stdout = '';
  private stderr = '';
  private readonly exited: Promise<string>;
  /** Set once the process is gone. */
  gone = false;

  constructor(readonly process: ChildProcess) {
    process.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    process.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    // The stdin of a child that died is closed: a write to it must not crash the test process.
    process.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      const settle = (why: string) => {
        this.gone = true;
        resolve(`exited with ${why}: ${this.stderr.trim() || this.stdout.trim() || 'no output'}`);
      };
      process.on('error', (error) => settle(`an error (${error.message})`));
      process.on('exit', (code, signal) => settle(signal ?? `code ${String(code)}`));
    });
  }

  /** Hands the worker `plan`; resolves when it has opened the store and waits for `go`. */
  async prepare(plan: ChildPlan): Promise<void> {
    this.stdout = '';
    this.process.stdin?.write(`${PLAN}${serialize(plan).toString('base64')}\n`);
    await this.line((line) => line === READY);
  }

  /** Lets the worker make its appends; resolves with its report. */
  async go(): Promise<ChildReport> {
    this.process.stdin?.write(`${GO}\n`);
    const line = await this.line((candidate) => candidate.startsWith(REPORT));
    return JSON.parse(line.slice(REPORT.length)) as ChildReport;
  }

  /** The first line of stdout `accept` takes; rejects with what the worker said if it exits first. */
  private line(accept: (line: string) => boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const look = () => {
        const found = this.stdout.split('\n').find(accept);
        if (found === undefined) return false;
        this.process.stdout?.off('data', look);
        resolve(found);
        return true;
      };
      if (look()) return;
      this.process.stdout?.on('data', look);
      void this.exited.then((why) => {
        this.process.stdout?.off('data', look);
        reject(new Error(why));
      });
    });
  }

  /** Whether the worker keeps the test process alive: only while it works. */
  hold(held: boolean): void {
    const handles = [this.process, this.process.stdin, this.process.stdout, this.process.stderr];
    for (const handle of handles) {
      const refable = handle as { ref?: () => void; unref?: () => void } | null;
      if (held) refable?.ref?.();
      else refable?.unref?.();
    }
  }
}

/**
 * Workers kept between runs, by the command that starts them and the modules their plans import:
 * starting a process (with tsx, a second or more) is most of what a run costs, so the spec's runs
 * share them. A worker ends when this process does (its stdin closes).
 */
const idle = new Map<string, AppendWorker[]>();

/** The pool of workers for plans that import `register`: a worker has imported what its plans did. */
function poolOf(register: readonly string[]): AppendWorker[] {
  const { script, execArgv } = childCommand(register);
  const key = JSON.stringify([execArgv, script, register]);
  const pool = idle.get(key) ?? [];
  idle.set(key, pool);
  return pool;
}

function workerFor(register: readonly string[]): AppendWorker {
  const pool = poolOf(register);
  for (let worker = pool.pop(); worker !== undefined; worker = pool.pop()) if (!worker.gone) return worker;
  const { script, execArgv } = childCommand(register);
  return new AppendWorker(spawn(process.execPath, [...execArgv, script], { stdio: ['pipe', 'pipe', 'pipe'] }));
}

function release(worker: AppendWorker, register: readonly string[]): void {
  worker.hold(false);
  poolOf(register).push(worker);
}

/**
 * Gives one worker process per plan its plan, lets them all go at once, and returns their reports in
 * plan order. After a failure the run's workers are killed, so none is left mid-plan.
 */
export async function runChildren(plans: readonly ChildPlan[]): Promise<ChildReport[]> {
  const workers = plans.map((plan) => workerFor(plan.register));
  for (const worker of workers) worker.hold(true);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`children did not finish within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  const named = <T>(promise: Promise<T>, index: number): Promise<T> =>
    promise.catch((error: unknown) => {
      throw new Error(`child ${index} ${error instanceof Error ? error.message : String(error)}`);
    });
  let failed = true;
  try {
    await Promise.race([
      Promise.all(workers.map((worker, index) => named(worker.prepare(plans[index] as ChildPlan), index))),
      deadline,
    ]);
    const reports = await Promise.race([
      Promise.all(workers.map((worker, index) => named(worker.go(), index))),
      deadline,
    ]);
    failed = false;
    return reports;
  } finally {
    clearTimeout(timer);
    for (const [index, worker] of workers.entries()) {
      // Only the workers of this run, by handle: a failed run leaves no process behind.
      if (failed) {
        if (!worker.gone) worker.process.kill('SIGKILL');
        worker.hold(false);
      } else release(worker, (plans[index] as ChildPlan).register);
    }
  }
}
