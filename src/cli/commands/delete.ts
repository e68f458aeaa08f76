/**
 * `chatstate delete SESSION… [--yes]`: deletes sessions (`SessionManager.delete`: a fork also
 * leaves its source's `metadata.forks`); asks first on a terminal, and refuses without `--yes`
 * when it cannot ask.
 * @module
 */
import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import { SessionManager } from '../../manager/session-manager.js';
import { action, defineCommand, examples } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { isTerminal } from '../io.js';

interface DeleteOptions {
  readonly yes?: boolean;
}

/** `delete`. */
export const remove = defineCommand('delete', (command) =>
  command
    .summary('delete sessions (asks first, unless --yes)')
    .description(
      'Delete sessions from the store. On a terminal it asks first; otherwise (a script, a pipe) it refuses unless --yes is given.\n' +
        'A deleted fork also leaves the list of forks of the session it was forked from (metadata.forks).\n' +
        'Exits 1 when a session did not exist (the others are deleted).',
    )
    .argument('<sessions...>', 'session ids')
    .option('-y, --yes', 'do not ask')
    .addHelpText('after', examples('delete trip-rome', 'delete old-1 old-2 --yes --store sqlite:./chat.db'))
    .action(
      action<DeleteOptions>(async (context, ids, options) => {
        for (const id of ids) assertValidId(id, 'session id');
        if (options.yes !== true) {
          const { stdin, stderr } = context.io;
          if (!isTerminal(stdin) || !isTerminal(stderr)) {
            throw new InvalidInputError(
              'INVALID_ARGUMENT',
              'delete asks for confirmation, and cannot ask here (not a terminal): pass --yes',
            );
          }
          const prompt = createInterface({ input: stdin, output: stderr });
          try {
            const answer = await prompt.question(
              `Delete ${ids.length === 1 ? `session ${ids[0]}` : `${ids.length} sessions (${ids.join(', ')})`} from ${context.storeUrl}? [y/N] `,
            );
            if (!/^y(es)?$/i.test(answer.trim())) {
              context.output.note('nothing deleted');
              return EXIT.problems;
            }
          } finally {
            prompt.close();
          }
        }
        const store = await context.store();
        // Through the manager: a deleted fork also leaves its source's metadata.forks.
        const manager = new SessionManager({ store, autoSaveIntervalMs: false });
        // The session is deleted either way; only its source's list of forks still names it.
        manager.on('error', (error) => context.output.warn(error.message));
        let missing = 0;
        try {
          for (const id of ids) {
            const deleted = await manager.delete(id);
            if (!deleted) missing++;
            if (context.output.json) await context.output.record({ id, deleted });
            else if (deleted) await context.output.line(`deleted ${id}`);
            else context.output.warn(`no session ${id}`);
          }
        } finally {
          await manager.close();
        }
        return missing === 0 ? EXIT.ok : EXIT.problems;
      }),
    ),
);
