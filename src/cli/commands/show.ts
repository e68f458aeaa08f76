/**
 * `chatstate show ID|FILE|-`: a session as a transcript (categories, tool calls with their results,
 * continuation links), its JSON with `--json`, or the wire form for a provider with `--format`.
 * @module
 */
import { Option } from 'commander';
import { readThreadView, type ThreadView } from '../../adapters/langgraph/thread-view.js';
import { InvalidInputError } from '../../errors.js';
import type { Message } from '../../message/message.js';
import type { ProviderName } from '../../message/schema.js';
import { integerOption, rangeOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { providerArgument, wireRequest } from '../providers.js';
import { sessionFrom } from '../session-source.js';
import type { CliContext } from '../context.js';
import { writeThreadTranscript } from '../thread-transcript.js';
import { linksOf, seqOf, writeTranscript } from '../transcript.js';

interface ShowOptions {
  readonly range?: { readonly from?: number; readonly to?: number };
  readonly tail?: number;
  readonly format?: ProviderName;
  readonly maxChars: number;
  readonly log?: boolean;
  readonly checkpoint?: string;
  readonly checkpoints?: boolean;
}

/** Where `show`, `stats` and `fork` find a session, for their help. */
export const SESSION_ADDRESSING =
  'SESSION is a session id in the store (--store), a session JSON file, "-" for session JSON on stdin,\n' +
  'or a session directory of a file store (DIR/sessions/NAME). An existing path is read as a path.';

function selected(messages: readonly Message[], options: ShowOptions): readonly Message[] {
  let chosen = messages;
  if (options.range !== undefined) {
    const { from = 0, to = Number.MAX_SAFE_INTEGER } = options.range;
    chosen = chosen.filter((message, index) => {
      const seq = seqOf(message, index);
      return seq >= from && seq <= to;
    });
  }
  if (options.tail !== undefined) chosen = chosen.slice(Math.max(0, chosen.length - options.tail));
  return chosen;
}

/** Prints `messages` as the request body `--format` names, with the warnings of the conversion; false without `--format`. */
async function showWire(context: CliContext, messages: readonly Message[], options: ShowOptions): Promise<boolean> {
  if (options.format === undefined) return false;
  const { body, warnings } = wireRequest(options.format, messages);
  for (const warning of warnings) context.output.warn(`${warning.code}: ${warning.message}`);
  await context.output.document(body);
  return true;
}

/** Prints `view` (a LangGraph thread at one checkpoint) as `show` prints a session. */
async function showThread(context: CliContext, view: ThreadView, options: ShowOptions): Promise<void> {
  const messages = selected(view.messages, options);
  if (await showWire(context, messages, options)) return;
  if (context.output.json) {
    await context.output.document({ thread: { ...view, messages } });
    return;
  }
  await writeThreadTranscript(context.output, view, messages, {
    maxChars: options.maxChars,
    checkpoints: options.checkpoints === true,
  });
}

/** `show`. */
export const show = defineCommand('show', (command) =>
  command
    .summary('print a session: transcript, JSON or wire form')
    .description(
      'Print a session as a transcript: each message with its sequence number, category and role,\n' +
        'each tool call followed by its result, and the continuation and fork links.\n' +
        '--json prints the session JSON (the messages shown); --format PROVIDER prints the request body\n' +
        'that provider would receive (warnings on stderr).\n\n' +
        'A LangGraph thread (its conversation or its checkpoint log, kept by chatstate/langgraph) is shown\n' +
        'as the graph holds it at its newest checkpoint (what getState gives), not as the append log its\n' +
        'conversation is (which keeps every message the thread ever had: forks, edits): the header says\n' +
        'which checkpoint, what the log holds beside it, and the other branches. --log shows the log,\n' +
        '--checkpoint ID an older checkpoint, --checkpoints lists them. With --json: {"thread": …}.\n\n' +
        SESSION_ADDRESSING,
    )
    .argument('<session>', 'session id, session JSON file, - for stdin, or file-store session directory')
    .option('--range <A..B>', 'only messages with sequence numbers A to B (inclusive; A.. and ..B work)', rangeOption)
    .option('--tail <n>', 'only the last N messages (of the range, when both are given)', integerOption(1))
    .addOption(
      new Option('--format <provider>', 'print the wire request body for this provider').argParser(providerArgument),
    )
    .option('--max-chars <n>', 'longest text shown per line in the transcript', integerOption(2), 500)
    .option('--log', 'a LangGraph thread: show its conversation as stored (every message it ever had)')
    .option('--checkpoint <id>', 'a LangGraph thread: show it at this checkpoint instead of its newest')
    .option('--checkpoints', 'a LangGraph thread: list its newest checkpoints after the header')
    .addHelpText(
      'after',
      examples(
        'show trip-lisbon --tail 20',
        'show trip-lisbon --range 10..40 --store sqlite:./chat.db',
        'show trip-lisbon --format anthropic',
        'show .chatstate/sessions/trip-lisbon',
        'show lg.rthread-1 --checkpoints --store sqlite:./graph.db',
        'show lg.rthread-1 --log --store sqlite:./graph.db',
      ),
    )
    .action(
      action<ShowOptions>(async (context, args, options) => {
        if (options.log === true && options.checkpoint !== undefined)
          throw new InvalidInputError('INVALID_ARGUMENT', '--log and --checkpoint do not go together: pick one');
        const { session, store } = await sessionFrom(context, args[0] as string, 'show');
        const view =
          store === undefined || options.log === true
            ? undefined
            : await readThreadView(store, session.id, {
                ...(options.checkpoint === undefined ? {} : { checkpointId: options.checkpoint }),
              });
        if (view !== undefined) return showThread(context, view, options);
        if (options.checkpoint !== undefined || options.checkpoints === true)
          throw new InvalidInputError(
            'INVALID_ARGUMENT',
            `${session.id} is not a LangGraph thread's conversation in a store: --checkpoint and --checkpoints need one`,
          );
        const messages = selected(session.messages, options);
        if (await showWire(context, messages, options)) return;
        if (context.output.json) {
          await context.output.document({ ...session.toJSON(), messages, links: linksOf(session) });
          return;
        }
        await writeTranscript(context.output, session, messages, { maxChars: options.maxChars });
      }),
    ),
);
