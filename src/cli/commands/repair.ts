/**
 * `chatstate repair [ID…]`: applies what the store can recover, and says what it did.
 * @module
 */
import { countSessions, repairSessions, selectionOf } from '../../operations/index.js';
import { integerOption, MAX_CONCURRENCY } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { progressTotal } from './export.js';
import { openForChecks } from './verify.js';

interface RepairOptions {
  readonly toolPairs?: boolean;
  readonly concurrency?: number;
}

/** Schemes whose store keeps backups and journals to recover damaged sessions from. */
const SELF_REPAIRING = ['file:'];

/** `repair`. */
export const repair = defineCommand('repair', (command) =>
  command
    .summary('repair what the store can recover, and say what was done')
    .description(
      'Read every session (or those named) through the store, so that its repairs run, and report them. The file\n' +
        'store restores a damaged session from its backup or cuts it at the damage, keeps the damaged files in\n' +
        'lost+found/, and records a recovery notice with what was lost; a session it cannot read at all becomes a\n' +
        'recovery session. SQLite, Postgres and Redis keep no backups: they report a damaged session (CORRUPT)\n' +
        'but cannot recover it. --tool-pairs also pairs tool calls and results as importers do (no text dropped).\n' +
        'An internal session saved before sessions carried a kind gets its kind recorded (list leaves it out).\n' +
        'Exits 1 when a session could not be repaired.',
    )
    .argument('[ids...]', 'the sessions to repair (default: every session)')
    .option('--tool-pairs', 'also repair unpaired tool calls and results, and save the sessions')
    .option('--concurrency <n>', 'sessions read at once (default 4)', integerOption(1, MAX_CONCURRENCY))
    .addHelpText('after', examples('repair', 'repair chat-1 --tool-pairs', 'repair --store file:./sessions --json'))
    .action(
      action<RepairOptions>(async (context, ids, options) => {
        const { store, damage } = await openForChecks(context);
        try {
          const selection = selectionOf(ids.length === 0 ? { all: true } : { ids });
          const progress = context.progress(
            'sessions',
            await progressTotal(context, () => countSessions(store, selection)),
          );
          let report;
          try {
            report = await repairSessions(store, {
              ...selection,
              damage,
              ...(options.toolPairs === true ? { toolPairs: true } : {}),
              ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
              onProgress: () => progress.increment(),
            });
          } finally {
            progress.stop();
          }
          if (context.output.json) await context.output.document(report);
          else {
            for (const session of report.sessions)
              for (const done of session.actions)
                await context.output.line(`${session.sessionId}  ${session.status}  ${done}`);
            if (!SELF_REPAIRING.some((scheme) => context.storeUrl.startsWith(scheme)))
              context.output.note(
                `${store.name}: this store keeps no backups; it can tell damage but not undo it (repairs: recovery notices${options.toolPairs === true ? ', tool pairs' : ''})`,
              );
            await context.output.line(
              `checked ${report.checked} sessions: ${report.repaired} repaired, ${report.unrepairable} not repairable`,
            );
          }
          return report.unrepairable > 0 ? EXIT.problems : EXIT.ok;
        } finally {
          await store.close();
        }
      }),
    ),
);
