/**
 * `chatstate validate PROVIDER FILE|-`: the structural problems a provider would reject in a wire history.
 * @module
 */
import { validate as validateWire } from '../../formats/index.js';
import type { ProviderName } from '../../message/schema.js';
import { action, defineCommand, examples } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { readJson } from '../input.js';
import { HISTORY_FIELD, asRequestBody, providerArgument } from '../providers.js';

/** `validate`. */
export const validate = defineCommand('validate', (command) =>
  command
    .summary("list a wire history's structural problems")
    .description(
      "Check a provider request body (or a plain array of its messages) against the provider's structural rules.\n" +
        `A plain array is read as the body's ${Object.entries(HISTORY_FIELD)
          .map(([provider, field]) => `${field} (${provider})`)
          .join(', ')}.\n` +
        'Prints "valid" and exits 0, or one problem a line and exits 1.',
    )
    .argument('<provider>', 'openaiChat, openaiResponses, anthropic, gemini or aiSdk', providerArgument)
    .argument('<file>', 'the wire JSON, or - for stdin')
    .addHelpText('after', examples('validate anthropic request.json', 'validate openaiChat - < messages.json'))
    .action(
      action(async (context, args) => {
        const [provider, file] = args as [ProviderName, string];
        const problems = validateWire(provider, asRequestBody(provider, await readJson(file, context.io.stdin)));
        if (context.output.json) {
          await context.output.record({ valid: problems.length === 0, problems });
        } else if (problems.length === 0) await context.output.line('valid');
        else
          for (const problem of problems)
            await context.output.line(`${problem.path || '(root)'}: ${problem.code}: ${problem.message}`);
        return problems.length === 0 ? EXIT.ok : EXIT.problems;
      }),
    ),
);
