/**
 * Child process of the file-store crash test: appends to and saves one session in a loop, as
 * fast as it can, printing each write after its promise resolved, until the parent kills it with
 * SIGKILL. A tiny fold threshold makes folds (journal seal, snapshot rewrite, backup rotation)
 * frequent, so kills land inside them too.
 *
 * Usage: node --import tsx file-crash-child.ts <directory> <sessionId> <tag> <seed> <foldBytes>
 *
 * Output lines (stdout is a pipe, written synchronously on Linux, so a printed line is an
 * acknowledged write): `READY`, `A <id> <id>…` after an append, `S <id>` after a save that added
 * the message `<id>`, `T <removed> <id>` after a tail replace (`replaceTail`, one journal record)
 * that removed the scratch message `<removed>` it had appended just before (never acknowledged,
 * so a kill between the replace and its line is no false loss) and added `<id>`, and
 * `ERR <text>` when the store broke a promise the child can check alone.
 */
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { fileStore } from '../../src/stores/file/index.js';
import { seededRandom } from './seeded-random.js';

const [directory, sessionId, tag, seedText, foldText] = process.argv.slice(2);
if (
  directory === undefined ||
  sessionId === undefined ||
  tag === undefined ||
  seedText === undefined ||
  foldText === undefined
) {
  throw new Error('usage: file-crash-child.ts <directory> <sessionId> <tag> <seed> <foldBytes>');
}

// Seeded, so a failing run can be replayed with its seed.
const random = seededRandom(Number(seedText));

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function isConflict(error: unknown): boolean {
  return ChatstateError.isInstance(error) && error.code === 'CONFLICT';
}

const store = fileStore(directory, { foldBytes: Number(foldText) });
if ((await store.get(sessionId)) === undefined) {
  try {
    await store.save(Session.create({ id: sessionId, userId: 'crash' }), { expectedVersion: 0 });
  } catch (error) {
    // Another child created it first.
    if (!isConflict(error)) throw error;
  }
}
out('READY');

/**
 * Appends a scratch message, then replaces it, if it is still the last one, by a new message on
 * the version read: racing the other children's appends, saves and folds (a `CONFLICT` is fine).
 */
const tailReplace = async (step: number): Promise<void> => {
  const scratch = Message.assistant(`${tag} scratch ${step}`, { id: `${tag}-${step}-z` });
  await store.append(sessionId, [scratch]);
  const summary = await store.summary(sessionId);
  const [last] = await store.readMessages(sessionId, { limit: 1 });
  if (summary === undefined || last?.id !== scratch.id || store.replaceTail === undefined) return;
  const message = Message.assistant(`${tag} replaced at step ${step}`, { id: `${tag}-${step}-t` });
  try {
    const result = await store.replaceTail(sessionId, {
      afterSeq: (last.seq as number) - 1,
      messages: [message],
      expectedVersion: summary.version,
    });
    if (result.removed !== 1) out(`ERR the tail replace removed ${result.removed} messages, not 1`);
    out(`T ${scratch.id} ${message.id}`);
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
};

let lastAcknowledged: string | undefined;
for (let step = 0; ; step += 1) {
  if (random() < 0.05) {
    // A save: a whole-session compare-and-replace racing the other children's appends and folds.
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
  if (random() < 0.1) {
    await tailReplace(step);
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
