/**
 * `chatstate compact SESSION… | --all --strategy NAME [limits] [--dry-run]`: compacts stored
 * sessions with a built-in strategy and prints the report; writes only without `--dry-run`.
 * @module
 */
import { Option } from 'commander';
import { InvalidInputError } from '../../errors.js';
import {
  STRATEGY_NAMES,
  compactStored,
  compactorOf,
  counterNamed,
  type CompactionLimit,
  type CompactionReport,
} from '../../operations/compact.js';
import { integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import type { CliContext } from '../context.js';
import { counterOption } from '../counters.js';
import { listAll } from './list.js';

interface CompactOptions {
  readonly strategy: string;
  readonly all?: boolean;
  readonly dryRun?: boolean;
  readonly maxMessages?: number;
  readonly maxTokens?: number;
  readonly targetTokens?: number;
  readonly turns?: number;
  readonly keepRecentTurns?: number;
  readonly counter: string;
}

const FLAG: Record<CompactionLimit | 'strategy', string> = {
  strategy: '--strategy',
  maxMessages: '--max-messages N',
  maxTokens: '--max-tokens N',
  turns: '--turns N',
};

type Report = CompactionReport;

async function writeReport(context: CliContext, report: Report, dryRun: boolean): Promise<void> {
  const output = context.output;
  if (output.json) return output.record(report);
  if (!report.compacted)
    return output.line(
      `${report.sessionId}: nothing to compact (${report.tokensBefore} tokens, ${report.messagesBefore} messages)`,
    );
  const verb = dryRun ? 'would compact' : 'compacted';
  await output.line(
    `${report.sessionId}: ${verb} with ${report.strategy}: ${report.messagesBefore} → ${report.messagesAfter} messages, ${report.tokensBefore} → ${report.tokensAfter} tokens` +
      `; removed ${report.removed.count} (${report.removed.tokens} tokens), rewrote ${report.modified.count} (saved ${report.modified.tokensSaved} tokens), added ${report.added}` +
      (report.reachedTarget ? '' : '; the target was not reached (the latest turn is kept whole)'),
  );
}

/** `compact`. */
export const compact = defineCommand('compact', (command) =>
  command
    .summary('compact sessions with a built-in strategy (report; --dry-run writes nothing)')
    .description(
      'Compact stored sessions now with a built-in strategy and print the report of each.\n' +
        'Without --dry-run the compacted session is saved (refused with CONFLICT if it changed meanwhile).\n\n' +
        'Strategies and their limits: messageLimit --max-messages N; tokenLimit --max-tokens N [--target-tokens N];\n' +
        'slidingWindow --turns N; tokenBuffer --max-tokens N; byCategory --max-tokens N [--target-tokens N];\n' +
        "truncateToolOutputs --max-tokens N [--keep-recent-turns N]; and Coreason's sliding_window (--turns), token_buffer (--max-tokens).",
    )
    .argument('[sessions...]', 'session ids in the store')
    .addOption(new Option('--strategy <name>', 'the strategy').choices(STRATEGY_NAMES).makeOptionMandatory())
    .option('--all', 'every session of the store')
    .option('--dry-run', 'print the report, write nothing')
    .option('--max-messages <n>', 'most messages kept (messageLimit)', integerOption(1))
    .option(
      '--max-tokens <n>',
      'token limit (tokenLimit, tokenBuffer, byCategory, truncateToolOutputs, token_buffer)',
      integerOption(1),
    )
    .option('--target-tokens <n>', 'tokens to compact down to (tokenLimit, byCategory)', integerOption(1))
    .option('--turns <n>', 'turns kept (slidingWindow, sliding_window)', integerOption(1))
    .option('--keep-recent-turns <n>', 'recent turns never truncated (truncateToolOutputs)', integerOption(0))
    .addOption(counterOption())
    .addHelpText(
      'after',
      examples(
        'compact trip-lisbon --strategy slidingWindow --turns 3 --dry-run',
        'compact --all --strategy tokenLimit --max-tokens 8000',
      ),
    )
    .action(
      action<CompactOptions>(async (context, ids, options) => {
        if ((ids.length === 0) === (options.all !== true))
          throw new InvalidInputError('INVALID_ARGUMENT', 'compact takes session ids or --all (one of them)');
        const compactor = compactorOf(options, (limit) => FLAG[limit]);
        const store = await context.store();
        let targets = ids;
        if (options.all === true) {
          targets = [];
          for await (const summary of listAll(store)) targets.push(summary.id);
        }
        const progress = options.all === true ? context.progress('sessions', targets.length) : undefined;
        const reports: Report[] = [];
        try {
          for (const id of targets) {
            const report = await compactStored(store, id, compactor, {
              counter: counterNamed(options.counter),
              ...(options.dryRun === true ? { dryRun: true } : {}),
            });
            progress?.increment();
            if (progress === undefined) await writeReport(context, report, options.dryRun === true);
            else reports.push(report);
          }
        } finally {
          progress?.stop();
        }
        for (const report of reports) await writeReport(context, report, options.dryRun === true);
      }),
    ),
);
