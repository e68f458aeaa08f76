/**
 * `chatstate forget-user USER [--yes]`: removes everything the store holds of one user
 * (`SessionStore.forgetUser`) and prints the receipt; asks first on a terminal, and refuses
 * without `--yes` when it cannot ask.
 * @module
 */
import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '../../errors.js';
import { assertOwnerId } from '../../ids.js';
import { action, defineCommand, examples } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { isTerminal } from '../io.js';

interface ForgetOptions {
  readonly yes?: boolean;
}

/** `forget-user`. */
export const forgetUser = defineCommand('forget-user', (command) =>
  command
    .summary('remove everything of one user, with a receipt (asks first, unless --yes)')
    .description(
      "Remove every session of the user (messages, session values, stored vectors, full-text rows), their user and agent values, and the store's files that held them (backups, journals, lost+found entries, leftovers); print what was removed, by kind, and when.\n" +
        'On a terminal it asks first; otherwise it refuses unless --yes is given. Running it again prints zeros; a run cut short is finished by running it again.',
    )
    .argument('<userId>', 'the user id')
    .option('-y, --yes', 'do not ask')
    .addHelpText('after', examples('forget-user u-42', 'forget-user u-42 --yes --json --store sqlite:./chat.db'))
    .action(
      action<ForgetOptions>(async (context, [given], options) => {
        const userId = assertOwnerId(given, 'userId');
        if (options.yes !== true) {
          const { stdin, stderr } = context.io;
          if (!isTerminal(stdin) || !isTerminal(stderr)) {
            throw new InvalidInputError(
              'INVALID_ARGUMENT',
              'forget-user asks for confirmation, and cannot ask here (not a terminal): pass --yes',
            );
          }
          const prompt = createInterface({ input: stdin, output: stderr });
          try {
            const answer = await prompt.question(
              `Remove everything of user ${userId} from ${context.storeUrl}? [y/N] `,
            );
            if (!/^y(es)?$/i.test(answer.trim())) {
              context.output.note('nothing removed');
              return EXIT.problems;
            }
          } finally {
            prompt.close();
          }
        }
        const receipt = await (await context.store()).forgetUser(userId);
        if (context.output.json) {
          await context.output.record(receipt);
          return EXIT.ok;
        }
        await context.output.line(`forgot user ${receipt.userId} at ${receipt.at}`);
        for (const [kind, count] of Object.entries(receipt.removed)) await context.output.line(`  ${kind}: ${count}`);
        return EXIT.ok;
      }),
    ),
);
