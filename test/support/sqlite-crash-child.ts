/**
 * Child process of the SQLite crash test: appends (alone, and three at once, which the store
 * commits as one group) and saves to one session in a loop, as fast as it can, printing each write
 * after its promise resolved, until the parent kills it with SIGKILL.
 *
 * Usage: node --import tsx sqlite-crash-child.ts (the test runs it bundled) <file> <sessionId> <tag> <seed>
 *
 * Output lines (stdout is a pipe, written synchronously on Linux, so a printed line is an
 * acknowledged write): `READY`, `A <id> <id>…` after an append, `S <id>` after a save that added
 * the message `<id>`, and `ERR <text>` when the store broke a promise the child can check alone.
 */
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { seededRandom } from './seeded-random.js';

const [file, sessionId, tag, seedText] = process.argv.slice(2);
if (file === undefined || sessionId === undefined || tag === undefined || seedText === undefined) {
  throw new Error('usage: sqlite-crash-child.ts <file> <sessionId> <tag> <seed>');
}

// Seeded, so a failing run can be replayed with its seed.
const random = seededRandom(Number(seedText));

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function isConflict(error: unknown): boolean {
  return ChatstateError.isInstance(error) && error.code === 'CONFLICT';
}

/**
 * Opens the store, trying again (at most 5 times) when another writer held the database past the
 * busy timeout, as an application would: on a loaded machine four children opening a database a
 * killed writer left behind can wait longer than 5 s. The test is about acknowledged writes.
 */
async function openStore(): Promise<Awaited<ReturnType<typeof sqliteStore>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sqliteStore(file as string);
    } catch (error) {
      if (attempt >= 5 || !ChatstateError.isInstance(error) || error.code !== 'UNAVAILABLE') throw error;
    }
  }
}

const store = await openStore();
if ((await store.get(sessionId)) === undefined) {
  try {
    await store.save(Session.create({ id: sessionId, userId: 'crash' }), { expectedVersion: 0 });
  } catch (error) {
    // Another child created it first.
    if (!isConflict(error)) throw error;
  }
}
out('READY');

let lastAcknowledged: string | undefined;
for (let step = 0; ; step += 1) {
  if (random() < 0.06) {
    // A save: a whole-session compare-and-replace racing the other children's appends.
    const session = await store.load(sessionId);
    const message = Message.user(`${tag} saved at step ${step}`, { id: `${tag}-${step}-s` });
    try {
      await store.save(session.append(message), { expectedVersion: session.version });
      out(`S ${message.id}`);
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    continue;
  }
  if (random() < 0.25) {
    // Three appends in flight at once: the store commits them as one group, which a kill can cut.
    await Promise.all(
      [0, 1, 2].map(async (index) => {
        const message = Message.user(`${tag} step ${step} concurrent ${index}`, { id: `${tag}-${step}-c${index}` });
        const result = await store.append(sessionId, [message]);
        if (result.appended.length !== 1) out(`ERR concurrent ${message.id} was not appended`);
        out(`A ${message.id}`);
      }),
    );
    continue;
  }
  const count = 1 + Math.floor(random() * 3);
  const messages = Array.from({ length: count }, (_, index) =>
    Message.assistant(`${tag} step ${step} part ${index} `.repeat(1 + Math.floor(random() * 20)), {
      id: `${tag}-${step}-${index}`,
    }),
  );
  // Now and then, retry the last acknowledged message with the new ones: it must be a duplicate.
  const retry = lastAcknowledged !== undefined && random() < 0.2 ? lastAcknowledged : undefined;
  const batch = retry === undefined ? messages : [Message.user('a retried message', { id: retry }), ...messages];
  const result = await store.append(sessionId, batch);
  if (retry !== undefined && !result.duplicates.includes(retry))
    out(`ERR retried ${retry} was not reported as a duplicate`);
  const added = result.appended.map((message) => message.id);
  if (added.join(' ') !== messages.map((message) => message.id).join(' '))
    out(`ERR appended ${added.join(' ')}, expected the new messages only`);
  out(`A ${added.join(' ')}`);
  lastAcknowledged = added.at(-1);
}
