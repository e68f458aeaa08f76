/**
 * The child process of the outage suites (see store-outage.ts), on a store URL opened with
 * `openStore` and its default timeouts. It never calls `process.exit`: it must end by itself, so a
 * timer or socket left behind shows as a child that does not exit.
 *
 * - `open <url>`: opens a store; prints `OPENED`, or `ERR …` and `MS <how long the open took>`.
 * - `append <url> <session> <after> <maxMs>`: saves an empty `session`, prints `READY`, then appends
 *   one message at a time, printing `A <id>` once an append resolved and `ERR …` for each failure,
 *   until `after` appends in a row succeeded after the last failure (or `maxMs` passed); then
 *   closes the store and prints `DONE`.
 *
 * A failure prints `ERR <code> <retryable> <reason> <outcome>` when it is a chatstate error, and
 * `UNTYPED <message>` otherwise.
 */
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';

const [mode, url, session = 'child', after = '10', maxMs = '20000'] = process.argv.slice(2);
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describe(error: unknown): string {
  if (!ChatstateError.isInstance(error))
    return `UNTYPED ${String((error as Error | undefined)?.message ?? error).replace(/\s+/g, ' ')}`;
  const { retryable, reason, outcome } = error.details as { retryable?: unknown; reason?: unknown; outcome?: unknown };
  return `ERR ${error.code} ${String(retryable)} ${String(reason)} ${String(outcome)}`;
}

if (url === undefined) throw new Error('usage: outage-child.ts open|append <url> …');

if (mode === 'open') {
  const started = performance.now();
  try {
    const store = await openStore(url);
    print('OPENED');
    await store.close();
  } catch (error) {
    print(describe(error));
    print(`MS ${Math.round(performance.now() - started)}`);
  }
} else if (mode === 'append') {
  const store = await openStore(url);
  await store.save(Session.create({ id: session }));
  print('READY');
  const deadline = Date.now() + Number(maxMs);
  let failed = false;
  let since = 0;
  for (let n = 0; n < 5000 && Date.now() < deadline; n += 1) {
    const id = `c-${n}`;
    try {
      await store.append(session, [Message.user(`child ${n}`, { id })]);
      print(`A ${id}`);
      since += 1;
    } catch (error) {
      print(describe(error));
      failed = true;
      since = 0;
    }
    if (failed && since >= Number(after)) break;
    await sleep(10);
  }
  await store.close();
  print('DONE');
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
