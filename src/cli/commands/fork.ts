/**
 * `chatstate fork SESSION [--at SEQ] [--id NEW]`: a new session with the history up to a message
 * (`SessionManager.fork`: `metadata.forkedFrom` links it back, the source's `metadata.forks` lists it).
 * @module
 */
import { NotFoundError } from '../../errors.js';
import { SessionManager } from '../../manager/session-manager.js';
import { integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { loadFrom } from '../session-source.js';

interface ForkOptions {
  readonly at?: number;
  readonly id?: string;
}

/** `fork`. */
export const fork = defineCommand('fork', (command) =>
  command
    .summary('copy a session up to a message into a new session')
    .description(
      'Store a new session holding the history of SESSION up to and including the message with sequence number --at\n' +
        '(the whole history without it). The fork records where it came from in metadata.forkedFrom, and the\n' +
        'source lists its forks in metadata.forks.',
    )
    .argument('<session>', 'session id in the store')
    .option('--at <seq>', 'the last message kept, by sequence number', integerOption(1))
    .option('--id <id>', 'id of the new session (default: a new id)')
    .addHelpText('after', examples('fork trip-lisbon --at 12', 'fork trip-lisbon --id trip-lisbon-b --json'))
    .action(
      action<ForkOptions>(async (context, args, options) => {
        const id = args[0] as string;
        const store = await context.store();
        const source = await loadFrom(store, id);
        const at =
          options.at === undefined
            ? source.messages[source.messages.length - 1]
            : source.messages.find((message) => message.seq === options.at);
        if (at === undefined) {
          throw new NotFoundError(
            options.at === undefined
              ? `Session ${JSON.stringify(id)} has no messages to fork`
              : `Session ${JSON.stringify(id)} has no message with sequence number ${options.at}`,
            { details: { sessionId: id } },
          );
        }
        const manager = new SessionManager({ store, autoSaveIntervalMs: false });
        try {
          const result = await manager.fork(id, {
            atMessageId: at.id,
            ...(options.id === undefined ? {} : { id: options.id }),
          });
          const forked = result.session;
          if (context.output.json)
            await context.output.record({
              id: forked.id,
              forkedFrom: { sessionId: id, messageId: at.id, seq: at.seq },
              messageCount: forked.messages.length,
              recordedOnSource: result.recorded,
              ...(result.recorded ? {} : { error: { code: result.error.code, message: result.error.message } }),
            });
          else await context.output.line(forked.id);
          context.output.note(
            `forked ${id} at #${at.seq ?? '?'} into ${forked.id} (${forked.messages.length} messages)`,
          );
          // The fork is stored either way; only the source's list of its forks lacks it.
          if (!result.recorded)
            context.output.warn(`${id} does not list its fork ${forked.id} (metadata.forks): ${result.error.message}`);
        } finally {
          await manager.close();
        }
      }),
    ),
);
