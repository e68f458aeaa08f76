/**
 * `chatstate purge-expired`: deletes the sessions past their retention.
 * @module
 */
import { action, defineCommand, examples } from '../command.js';

/** `purge-expired`. */
export const purgeExpired = defineCommand('purge-expired', (command) =>
  command
    .summary('delete sessions past their retention')
    .description('Delete every session whose retention has passed (those "list --expired" shows) and print how many.')
    .addHelpText('after', examples('purge-expired', 'purge-expired --store postgres://localhost/chat --json'))
    .action(
      action(async (context) => {
        const purged = await (await context.store()).purgeExpired();
        if (context.output.json) await context.output.record({ purged });
        else await context.output.line(`purged ${purged} expired session${purged === 1 ? '' : 's'}`);
      }),
    ),
);
