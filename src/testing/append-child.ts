/**
 * The child process of the cross-process spec. For each `plan:` line on stdin it imports the plan's
 * `register` modules (their `registerStore` calls register the store's scheme), opens the store
 * under test through the scheme registry with `openRegisteredStore(url, options)`, prints `ready`,
 * waits for the `go` line (so that every child starts writing at the same moment), makes its
 * appends one after the other, prints one `report:` line and closes the store; it ends when stdin
 * does. Any failure but `CONFLICT` ends it with exit code 1 and the error on stderr.
 * @module
 */
import { createInterface } from 'node:readline';
import { deserialize } from 'node:v8';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { openRegisteredStore } from '../store/registry.js';
import type { SessionStore } from '../store/session-store-types.js';
import { GO, PLAN, READY, REPORT, type ChildAppendOutcome, type ChildPlan, type ChildReport } from './processes.js';

/** Writes to stdout and waits until the line is handed to the pipe (the process exits right after). */
function print(line: string): Promise<void> {
  return new Promise((resolve, reject) =>
    process.stdout.write(`${line}\n`, (error) => (error ? reject(error) : resolve())),
  );
}

/** Opens the plan's store after importing its registering modules; an unknown scheme says which modules were imported. */
async function open(plan: ChildPlan): Promise<SessionStore> {
  for (const specifier of plan.register) await import(specifier);
  try {
    return await openRegisteredStore(plan.url, plan.options);
  } catch (error) {
    if (!ChatstateError.hasCode(error, 'INVALID_ARGUMENT') || error.details.registered === undefined) throw error;
    const imported = plan.register.length === 0 ? 'no module' : plan.register.join(', ');
    throw new Error(
      `${error.message}. The child imported ${imported}: crossProcess.register must name the modules whose registerStore calls register this scheme ('chatstate/stores' for chatstate's own stores)`,
      { cause: error },
    );
  }
}

/** Runs one plan: open the store, say ready, wait for `go`, append, report, close. */
async function runPlan(plan: ChildPlan, next: () => Promise<string | undefined>): Promise<void> {
  const store = await open(plan);
  try {
    // The first read opens connections and files, so that the start signal finds the store warm.
    await store.get(plan.sessionId);
    await print(READY);
    if ((await next()) !== GO) throw new Error('expected the go line after ready');
    const outcomes: ChildAppendOutcome[] = [];
    for (const append of plan.appends) {
      const messages = append.ids.map((id) => Message.user(`from process ${process.pid}: ${id}`, { id }));
      try {
        const result = await store.append(
          plan.sessionId,
          messages,
          append.expectedVersion === undefined ? {} : { expectedVersion: append.expectedVersion },
        );
        outcomes.push({
          appended: result.appended.map((message) => message.id),
          duplicates: [...result.duplicates],
          conflict: false,
        });
      } catch (error) {
        if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
        outcomes.push({ appended: [], duplicates: [], conflict: true });
      }
    }
    const report: ChildReport = { outcomes };
    await print(`${REPORT}${JSON.stringify(report)}`);
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const next = async (): Promise<string | undefined> => {
    const line = await lines.next();
    return line.done === true ? undefined : line.value;
  };
  // One plan after another, until the parent closes stdin.
  for (let line = await next(); line !== undefined; line = await next()) {
    if (!line.startsWith(PLAN)) throw new Error(`expected a plan line, got ${JSON.stringify(line.slice(0, 40))}`);
    await runPlan(deserialize(Buffer.from(line.slice(PLAN.length), 'base64')) as ChildPlan, next);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
