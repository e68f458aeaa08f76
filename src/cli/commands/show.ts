/**
 * `chatstate show ID|FILE|-`: a session as a transcript (categories, tool calls with their results,
 * continuation links), its JSON with `--json`, or the wire form for a provider with `--format`.
 * @module
 */
import { Option } from 'commander';
import type { Message } from '../../message/message.js';
import type { ProviderName } from '../../message/schema.js';
import { integerOption, rangeOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { providerArgument, wireRequest } from '../providers.js';
import { sessionFrom } from '../session-source.js';
import { linksOf, seqOf, writeTranscript } from '../transcript.js';

interface ShowOptions {
  readonly range?: { readonly from?: number; readonly to?: number };
  readonly tail?: number;
  readonly format?: ProviderName;
  readonly maxChars: number;
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

/** `show`. */
export const show = defineCommand('show', (command) =>
  command
    .summary('print a session: transcript, JSON or wire form')
    .description(
      'Print a session as a transcript: each message with its sequence number, category and role,\n' +
        'each tool call followed by its result, and the continuation and fork links.\n' +
        '--json prints the session JSON (the messages shown); --format PROVIDER prints the request body\n' +
        'that provider would receive (warnings on stderr).\n\n' +
        SESSION_ADDRESSING,
    )
    .argument('<session>', 'session id, session JSON file, - for stdin, or file-store session directory')
    .option('--range <A..B>', 'only messages with sequence numbers A to B (inclusive; A.. and ..B work)', rangeOption)
    .option('--tail <n>', 'only the last N messages (of the range, when both are given)', integerOption(1))
    .addOption(
      new Option('--format <provider>', 'print the wire request body for this provider').argParser(providerArgument),
    )
    .option('--max-chars <n>', 'longest text shown per line in the transcript', integerOption(2), 500)
    .addHelpText(
      'after',
      examples(
        'show trip-lisbon --tail 20',
        'show trip-lisbon --range 10..40 --store sqlite:./chat.db',
        'show trip-lisbon --format anthropic',
        'show .chatstate/sessions/trip-lisbon',
      ),
    )
    .action(
      action<ShowOptions>(async (context, args, options) => {
        const { session } = await sessionFrom(context, args[0] as string, 'show');
        const messages = selected(session.messages, options);
        if (options.format !== undefined) {
          const { body, warnings } = wireRequest(options.format, messages);
          for (const warning of warnings) context.output.warn(`${warning.code}: ${warning.message}`);
          await context.output.document(body);
          return;
        }
        if (context.output.json) {
          await context.output.document({ ...session.toJSON(), messages, links: linksOf(session) });
          return;
        }
        await writeTranscript(context.output, session, messages, { maxChars: options.maxChars });
      }),
    ),
);
