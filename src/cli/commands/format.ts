/**
 * `chatstate format PROVIDER SESSION`: the request body a provider receives for a session's
 * history (only the body on stdout; chatstate's warnings go to stderr).
 * @module
 */
import type { ProviderName } from '../../message/schema.js';
import { action, defineCommand, examples } from '../command.js';
import { providerArgument, wireRequest } from '../providers.js';
import { sessionFrom } from '../session-source.js';
import { SESSION_ADDRESSING } from './show.js';

/** `format`. */
export const format = defineCommand('format', (command) =>
  command
    .summary("print a session's history as a provider's request body")
    .description(
      "Print the request body a provider receives for a session's history (JSON on stdout);\n" +
        'what does not map (an orphaned tool result, an unsupported part) is reported on stderr.\n\n' +
        SESSION_ADDRESSING,
    )
    .argument('<provider>', 'openaiChat, openaiResponses, anthropic, gemini or aiSdk', providerArgument)
    .argument('<session>', 'session id, session JSON file, - for stdin, or file-store session directory')
    .addHelpText(
      'after',
      examples('format anthropic session.json', 'format openaiChat trip-lisbon --store file:./.chatstate'),
    )
    .action(
      action(async (context, args) => {
        const [provider, reference] = args as [ProviderName, string];
        const { session } = await sessionFrom(context, reference, 'format');
        const { body, warnings } = wireRequest(provider, session.messages);
        for (const warning of warnings) context.output.warn(`${warning.code}: ${warning.message}`);
        await context.output.document(body);
      }),
    ),
);
