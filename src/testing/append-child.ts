/**
 * The child process of the cross-process spec. It imports the plan's `register` modules (their
 * `registerStore` calls register the store's scheme), opens the store under test through the scheme
 * registry with `openRegisteredStore(url, options)`, prints `ready`, waits for a line on stdin (so that every child starts
 * writing at the same moment), makes its appends one after the other and prints one `report:` line.
 * Any failure but `CONFLICT` ends it with exit code 1 and the error on stderr.
 * @module
 */
import { once } from 'node:events';
import { deserialize } from 'node:v8';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { openRegisteredStore } from '../store/registry.js';
import type { SessionStore } from '../store/types.js';
import { READY, REPORT, type ChildAppendOutcome, type ChildPlan, type ChildReport } from './processes.js';

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

async function main(): Promise<void> {
  const argument = process.argv[2];
  if (argument === undefined) throw new Error('usage: append-child <base64 v8-serialized plan>');
  const plan = deserialize(Buffer.from(argument, 'base64')) as ChildPlan;
  const store = await open(plan);
  try {
    // The first read opens connections and files, so that the start signal finds the store warm.
    await store.get(plan.sessionId);
    await print(READY);
    process.stdin.setEncoding('utf8');
    await once(process.stdin, 'data');
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

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
