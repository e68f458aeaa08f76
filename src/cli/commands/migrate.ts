/**
 * `chatstate migrate --from URL --to URL`: copies every session with its values and metadata, in
 * parallel with bounded memory; resumable and idempotent; `--verify` compares afterwards.
 * @module
 */
import { ConflictError } from '../../errors.js';
import { countSessions, migrateSessions, type MigrateReport } from '../../operations/index.js';
import { integerOption, MAX_CONCURRENCY } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { redactUrl, type CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { progressTotal } from './export.js';

interface MigrateOptions {
  readonly from?: string;
  readonly to: string;
  readonly verify?: boolean;
  readonly replace?: boolean;
  readonly concurrency?: number;
}

async function print(context: CliContext, report: MigrateReport, from: string, to: string): Promise<void> {
  const { output } = context;
  if (output.json) {
    await output.document(report);
    return;
  }
  for (const problem of report.problems) output.warn(`${problem.sessionId ?? ''}: ${problem.code}: ${problem.message}`);
  for (const difference of report.verify?.differences ?? [])
    await output.line(`${difference.sessionId ?? '(app values)'}  ${difference.kind}  ${difference.message}`);
  const parts = [`${report.created} copied`, `${report.unchanged} already there`];
  if (report.replaced > 0) parts.push(`${report.replaced} replaced`);
  if (report.expired > 0) parts.push(`${report.expired} expired`);
  if (report.problems.length > 0) parts.push(`${report.problems.length} failed`);
  if (report.conflicts.length > 0) parts.push(`${report.conflicts.length} conflicts`);
  await output.line(`${report.sessions} sessions from ${redactUrl(from)} to ${redactUrl(to)}: ${parts.join(', ')}`);
  if (report.verify !== undefined)
    await output.line(
      report.verify.equal
        ? `verified: the target holds all ${report.verify.compared} sessions, equal`
        : `verify failed: ${report.verify.differences.filter((each) => each.kind !== 'extra').length} differences`,
    );
}

/** `migrate`. */
export const migrate = defineCommand('migrate', (command) =>
  command
    .summary('copy every session with its values from one store to another')
    .description(
      'Copy every session of the --from store (default: --store) into the --to store, with its metadata and the\n' +
        'active-memory values of its session, user and agent scopes, and the app scope. Sessions go in parallel\n' +
        '(--concurrency), a page at a time. It is idempotent and resumable: an equal session in the target is\n' +
        'left as it is, so a second run copies nothing and an interrupted run finishes when run again. A target\n' +
        'session that differs is a CONFLICT (exit 1) unless --replace. --verify compares the stores afterwards.',
    )
    .option('--from <url>', 'the store to copy from (default: --store)')
    .requiredOption('--to <url>', 'the store to copy into')
    .option('--verify', 'check afterwards that the target holds every session, equal')
    .option('--replace', 'overwrite target sessions that differ')
    .option('--concurrency <n>', 'sessions copied at once (default 4)', integerOption(1, MAX_CONCURRENCY))
    .addHelpText(
      'after',
      examples(
        'migrate --from file:./.chatstate --to sqlite:./chat.db --verify',
        'migrate --from sqlite:./chat.db --to postgres://app@db/chat --concurrency 8',
      ),
    )
    .action(
      action<MigrateOptions>(async (context, _args, options) => {
        const from = options.from ?? context.storeUrl;
        const source = await context.store(from);
        const target = await context.store(options.to, { create: true });
        const progress = context.progress(
          'sessions',
          await progressTotal(context, () => countSessions(source, { all: true })),
        );
        let report: MigrateReport;
        try {
          report = await migrateSessions(source, target, {
            mode: options.replace === true ? 'replace' : 'skip',
            ...(options.verify === true ? { verify: true } : {}),
            ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
            onProgress: () => progress.increment(),
          });
        } finally {
          progress.stop();
        }
        await print(context, report, from, options.to);
        if (report.conflicts.length > 0) {
          const ids = report.conflicts.map((conflict) => conflict.sessionId);
          throw new ConflictError(
            `${ids.length} target session${ids.length === 1 ? '' : 's'} differ${ids.length === 1 ? 's' : ''} from the source: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''} (--replace overwrites them)`,
            { details: { sessionIds: ids } },
          );
        }
        return report.problems.length > 0 || report.verify?.equal === false ? EXIT.problems : EXIT.ok;
      }),
    ),
);
