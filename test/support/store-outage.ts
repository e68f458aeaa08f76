/**
 * The tools of the outage scenarios (outage-scenarios.ts): every store operation that reaches the server,
 * run during a fault (each must fail with `UNAVAILABLE`, `retryable`, within a bound) and after it
 * (the same store instance must serve it again); a background writer whose acknowledged appends
 * must all survive; the lost-acknowledgement retry; and the child process that appends while its
 * server is killed. Only real servers and real sockets: no mocks.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import type { FaultProxy } from './fault-proxy.js';
import { bundledScript } from './bundled-script.js';

/** The timeouts the suites open their stores with (the defaults are 2 s and 10 s). */
export const TIMEOUTS = { connectTimeoutMs: 1000, commandTimeoutMs: 1000 } as const;
/** A refused or reset connection fails at once: this bound leaves room for a loaded machine. */
export const FAST_MS = 1500;
/** A stalled server costs at most a connect timeout and a command timeout, plus slack for a loaded machine. */
export const STALL_MS = TIMEOUTS.connectTimeoutMs + TIMEOUTS.commandTimeoutMs + 1500;
/** How long a recovered server may take to serve every operation again. */
export const RECOVERY_MS = 15_000;

const USER = 'u-outage';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (text: string, id: string) => Message.user(text, { id });

/** The sessions every round reads: two different ones, so that a reply given to the wrong call shows. */
export const BASE = { id: 'base', texts: ['alpha bravo', 'charlie delta', 'echo foxtrot'] } as const;
export const OTHER = { id: 'other', texts: ['golf hotel', 'india juliet'] } as const;
/** The session the background writer appends to. */
export const LEDGER = 'ledger';

/** Saves what the operations read and write. */
export async function seedOutageData(store: SessionStore): Promise<void> {
  for (const { id, texts } of [BASE, OTHER]) {
    await store.save(
      Session.create({ id, userId: USER, messages: texts.map((text, index) => say(text, `${id}-${index}`)) }),
    );
  }
  await store.save(Session.create({ id: LEDGER, userId: USER }));
  await store.values.set({ scope: 'user', userId: USER }, { color: 'blue', size: 3 });
}

/** One store operation that talks to the server. */
export interface Operation {
  readonly name: string;
  readonly run: () => Promise<unknown>;
}

/**
 * Every operation of `store` that reaches the server (open and close are tested on their own),
 * with ids unique to `round` for the writes, so that a retried round never conflicts with itself.
 */
export function outageOperations(store: SessionStore, round: string): Operation[] {
  const user = { scope: 'user', userId: USER } as const;
  const operations: Operation[] = [
    { name: 'get', run: () => store.get(BASE.id) },
    { name: 'load', run: () => store.load(BASE.id) },
    { name: 'readMessages', run: () => store.readMessages(BASE.id, { limit: 2 }) },
    { name: 'summary', run: () => store.summary(BASE.id) },
    { name: 'list', run: () => store.list({ userId: USER }) },
    { name: 'append', run: () => store.append(BASE.id, [say(`${round} appended`, `${round}-a`)]) },
    {
      name: 'append with state',
      run: () =>
        store.append(BASE.id, [say(`${round} with state`, `${round}-s`)], {
          state: { metadata: { round }, variables: { step: 1 } },
        }),
    },
    {
      name: 'save',
      run: () =>
        store.save(Session.create({ id: `saved-${round}`, userId: USER, messages: [say('saved', `${round}-v`)] })),
    },
    { name: 'delete', run: () => store.delete(`doomed-${round}`) },
    { name: 'purgeExpired', run: () => store.purgeExpired() },
    { name: 'purgeExpired by prefix', run: () => store.purgeExpired({ idPrefix: `doomed-${round}` }) },
    { name: 'values.get', run: () => store.values.get(user, 'color') },
    { name: 'values.getAll', run: () => store.values.getAll(user) },
    { name: 'values.set', run: () => store.values.set(user, { [`round-${round}`]: round }) },
  ];
  const { marks, readMessagesAt } = store;
  if (marks !== undefined) operations.push({ name: 'marks', run: () => marks.call(store, USER) });
  if (readMessagesAt !== undefined)
    operations.push({
      name: 'readMessagesAt',
      run: () => readMessagesAt.call(store, [{ sessionId: OTHER.id, seq: 1 }]),
    });
  operations.push(
    // Once the store's shared recall index holds the user's messages, a recall searches them while
    // the store answers its one marks call: that call failing must fail the recall, typed.
    { name: 'recall', run: () => recallBravo(store) },
  );
  const search = store.searchText;
  if (search !== undefined)
    operations.push({ name: 'searchText', run: () => search({ text: 'bravo', userId: USER, limit: 5 }) });
  return operations;
}

/** Recall of "bravo" over the user's sessions through a handle (the store's shared recall index). */
function recallBravo(store: SessionStore): Promise<readonly { readonly text: string }[]> {
  return createSessionHandle({ store, sessionId: BASE.id, userId: USER }).recall('bravo', { k: 3 });
}

/** Fills the store's shared recall index with the user's messages, so that later recalls take the path that searches while the marks call is out. */
export async function warmRecall(store: SessionStore): Promise<void> {
  expect((await recallBravo(store)).map((hit) => hit.text)).toContain(BASE.texts[0]);
}

/** How one call ended, and how long it took. */
export interface Attempt {
  readonly name: string;
  readonly ms: number;
  readonly error?: unknown;
}

/** Runs every operation at once. */
export async function attemptAll(operations: readonly Operation[]): Promise<Attempt[]> {
  return Promise.all(
    operations.map(async ({ name, run }) => {
      const started = performance.now();
      try {
        await run();
        return { name, ms: performance.now() - started };
      } catch (error) {
        return { name, ms: performance.now() - started, error };
      }
    }),
  );
}

/** Asserts that `error` is a typed, retryable `UNAVAILABLE` naming `store`; returns its details. */
export function expectUnavailable(error: unknown, store: string, label = ''): Readonly<Record<string, unknown>> {
  expect(ChatstateError.isInstance(error), `${label}: ${String(error)}`).toBe(true);
  const typed = error as ChatstateError & { retryable?: unknown };
  expect(typed.code, `${label}: ${typed.message}`).toBe('UNAVAILABLE');
  expect(typed.retryable, label).toBe(true);
  expect(typed.details, label).toMatchObject({ store, retryable: true });
  expect(['not-applied', 'unknown', 'applied'], label).toContain(typed.details.outcome);
  return typed.details;
}

/** Asserts that every attempt failed with `UNAVAILABLE` within `withinMs`; returns the slowest time. */
export function expectAllUnavailable(attempts: readonly Attempt[], store: string, withinMs: number): number {
  for (const attempt of attempts) {
    expect(attempt.error, `${attempt.name} succeeded during the fault`).toBeDefined();
    expectUnavailable(attempt.error, store, attempt.name);
    expect(attempt.ms, `${attempt.name} took ${Math.round(attempt.ms)} ms`).toBeLessThan(withinMs);
  }
  return Math.max(...attempts.map((attempt) => attempt.ms));
}

/** Runs `run` until it resolves, retrying only `UNAVAILABLE` (as a caller would), for at most `timeoutMs`. */
export async function eventually<T>(run: () => Promise<T>, timeoutMs = RECOVERY_MS): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'UNAVAILABLE') || Date.now() > until) throw error;
      await sleep(100);
    }
  }
}

/** Waits until `condition()` holds, checking every 20 ms; fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** After a fault: the same store serves every operation again (each retried while `UNAVAILABLE`), and reads are not mixed up. */
export async function expectRecovered(store: SessionStore, round: string): Promise<void> {
  for (const { name, run } of outageOperations(store, round)) {
    await eventually(run).catch((error: unknown) => {
      throw new Error(`${name} did not recover: ${String(error)}`, { cause: error });
    });
  }
  await expectRepliesInPlace(store);
}

/** Concurrent reads of two sessions each get their own session: no reply of another (or an older) call. */
export async function expectRepliesInPlace(store: SessionStore): Promise<void> {
  const reads = await Promise.all(
    [BASE, OTHER, BASE, OTHER].map(async ({ id, texts }) => ({
      texts,
      got: await store.readMessages(id, { limit: 50 }),
    })),
  );
  for (const { texts, got } of reads) {
    expect(got.slice(0, texts.length).map((message) => Message.text(message))).toEqual(texts);
  }
  expect((await store.values.get({ scope: 'user', userId: USER }, 'color')) ?? null).toBe('blue');
  // The recall index came through the fault whole: the message is found, once.
  const found = (await recallBravo(store)).map((hit) => hit.text);
  expect(found.filter((text) => text === BASE.texts[0])).toHaveLength(1);
}

/**
 * A writer appending one message at a time to `LEDGER` in the background, as an application
 * would during an outage: it remembers which appends resolved, and that every failure was typed.
 */
export class AckLedger {
  readonly acked: string[] = [];
  readonly failures: unknown[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly store: SessionStore,
    private readonly label: string,
    private readonly storeName: string,
  ) {
    this.loop = this.write();
  }

  private async write(): Promise<void> {
    for (let n = 0; this.running && n < 2000; n += 1) {
      const id = `${this.label}-${n}`;
      try {
        await this.store.append(LEDGER, [say(`ledger ${n}`, id)]);
        this.acked.push(id);
      } catch (error) {
        this.failures.push(error);
      }
      await sleep(15);
    }
  }

  /** Stops the writer (call it in a `finally`: a writer left running would disturb later tests). */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Every failure the writer met was `UNAVAILABLE`. */
  expectOnlyUnavailable(): void {
    for (const failure of this.failures) expectUnavailable(failure, this.storeName, 'a background append');
  }

  /** Every acknowledged append is stored, exactly once. */
  async expectAllStored(store: SessionStore = this.store): Promise<void> {
    const stored = (await eventually(() => store.load(LEDGER))).messages.map((message) => message.id);
    const counts = new Map<string, number>();
    for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of this.acked) expect(counts.get(id), `acknowledged ${id}`).toBe(1);
  }
}

/**
 * An append whose acknowledgement is lost (the server applied it; the proxy dropped the reply and
 * reset the connection) fails `UNAVAILABLE` with an `unknown` outcome; retried with the same ids it
 * reports duplicates, retried with the old `expectedVersion` it gets `CONFLICT`, and each message
 * is stored once.
 */
export async function expectLostAckStoredOnce(
  store: SessionStore,
  proxy: FaultProxy,
  storeName: string,
  request: Buffer,
): Promise<void> {
  const id = 'lost-ack';
  await eventually(() => store.save(Session.create({ id, userId: USER, messages: [say('first', 'la-0')] })));
  // An append first, so that the server has the append script cached (a restart empties the cache).
  const before = await store.append(id, [say('warm-up', 'la-w')]);
  const messages = [say('second', 'la-1'), say('third', 'la-2')];
  const lost = proxy.loseReplyTo((recent) => recent.includes(request));
  const failed = await store.append(id, messages, { expectedVersion: before.version }).catch((error: unknown) => error);
  await lost;
  expect(expectUnavailable(failed, storeName, 'the append whose reply was lost').outcome).toBe('unknown');
  // The same store, retried as a caller would: first with the version it expected.
  const conflict = await eventually(() => store.append(id, messages, { expectedVersion: before.version })).catch(
    (error: unknown) => error,
  );
  expect(ChatstateError.hasCode(conflict, 'CONFLICT'), String(conflict)).toBe(true);
  const retried = await eventually(() => store.append(id, messages));
  expect(retried.appended).toEqual([]);
  expect([...retried.duplicates].sort()).toEqual(['la-1', 'la-2']);
  expect(retried.version).toBe(before.version + 1);
  const stored = await store.load(id);
  expect(stored.messages.map((message) => [message.id, message.seq])).toEqual([
    ['la-0', 1],
    ['la-w', 2],
    ['la-1', 3],
    ['la-2', 4],
  ]);
}

/** What a child process run of `outage-child.ts` printed, and how it ended. */
export interface ChildReport {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly acked: string[];
  /** `ERR` lines: `<code> <retryable> <reason> <outcome>` of each failure. */
  readonly errors: string[];
  readonly lines: string[];
  readonly stderr: string;
  readonly ms: number;
}

const CHILD = fileURLToPath(new URL('./outage-child.ts', import.meta.url));

/**
 * Runs `outage-child.ts` with `args`; `onLine` sees each complete line of its output. The child is
 * SIGKILLed after `timeoutMs` (then `signal` says so): a child that does not exit by itself failed.
 */
export function runOutageChild(
  args: readonly string[],
  onLine: (line: string, report: { acked: string[] }) => void = () => undefined,
  timeoutMs = 45_000,
): Promise<ChildReport> {
  return bundledScript(CHILD).then((bundle) => outageRun(bundle, args, onLine, timeoutMs));
}

function outageRun(
  bundle: string,
  args: readonly string[],
  onLine: (line: string, report: { acked: string[] }) => void,
  timeoutMs: number,
): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const acked: string[] = [];
    let partial = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith('A ')) acked.push(line.slice(2));
        onLine(line, { acked });
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        acked,
        errors: lines.filter((line) => line.startsWith('ERR ')).map((line) => line.slice(4)),
        lines,
        stderr,
        ms: performance.now() - started,
      });
    });
  });
}
