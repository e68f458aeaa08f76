/**
 * `chatstate export ID… | --all`: sessions as export lines (lossless: `import` gives them back
 * equal, with their values), streamed to stdout or a file; `--to SYSTEM PATH` writes another
 * system's format instead.
 * @module
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { InvalidInputError } from '../../errors.js';
import { exporterFor, exporterNames } from '../../interchange/index.js';
import { countSessions, exportBundles, exportSessions, selectionOf } from '../../operations/index.js';
import { integerOption, MAX_CONCURRENCY } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import type { CliContext } from '../context.js';
import { isTerminal } from '../io.js';
import { write } from '../output.js';

interface ExportOptions {
  readonly all?: boolean;
  readonly output?: string;
  readonly to?: string;
  readonly concurrency?: number;
}

/** The progress bar's total, counted only when a bar is drawn (counting is a pass over `list`). */
export async function progressTotal(context: CliContext, count: () => Promise<number>): Promise<number | undefined> {
  return context.options.quiet === true || !isTerminal(context.io.stderr) ? undefined : count();
}

async function toSystem(context: CliContext, system: string, args: string[], options: ExportOptions): Promise<void> {
  const [target, ...ids] = args;
  if (target === undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', `export --to ${system} needs the PATH to write to`);
  const exporter = await exporterFor(system);
  const store = await context.store();
  const selection = { ...(ids.length === 0 ? {} : { ids }), ...(options.all === true ? { all: true } : {}) };
  const progress = context.progress(
    'sessions',
    await progressTotal(context, () => countSessions(store, selectionOf(selection))),
  );
  const sessions = (async function* () {
    for await (const bundle of exportBundles(store, {
      ...selection,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      onProgress: () => progress.increment(),
    }))
      yield bundle.session;
  })();
  let summary;
  try {
    summary = await exporter.write(sessions, target);
  } finally {
    progress.stop();
  }
  if (context.output.json) await context.output.record(summary);
  else {
    for (const warning of summary.warnings) context.output.warn(`${warning.sessionId}: ${warning.message}`);
    context.output.note(
      `exported ${summary.sessions} sessions to ${target} (${summary.files.length} files, ${system} format)`,
    );
  }
}

/** `export`. */
export const exportCommand = defineCommand('export', (command) =>
  command
    .summary('export sessions as JSON lines (lossless), or in another system’s format')
    .description(
      'Write sessions as JSON lines, one line a session with its messages, metadata, variables, owners, version\n' +
        'and the active-memory values of its session, user and agent scopes (with --all, a first line holds the\n' +
        'app scope). "chatstate import" of the output gives back equal sessions, values and metadata.\n' +
        'Streams: one page of sessions in memory at a time. With --to SYSTEM PATH, writes that system’s format\n' +
        `instead (${exporterNames().join(', ') || 'none registered yet'}).`,
    )
    .argument('[ids...]', 'the sessions to export (or --all); with --to, the PATH first')
    .option('--all', 'every session of the store')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--to <system>', 'write another system’s format under PATH')
    .option('--concurrency <n>', 'sessions read at once (default 4)', integerOption(1, MAX_CONCURRENCY))
    .addHelpText(
      'after',
      examples(
        'export --all > backup.jsonl',
        'export chat-1 chat-2 -o two.jsonl',
        'export --store sqlite:./chat.db --all --to goaitools ./out',
      ),
    )
    .action(
      action<ExportOptions>(async (context, args, options) => {
        if (options.to !== undefined) return toSystem(context, options.to, args, options);
        const selection = selectionOf({
          ...(args.length === 0 ? {} : { ids: args }),
          ...(options.all === true ? { all: true } : {}),
        });
        const store = await context.store();
        const total = await progressTotal(context, () => countSessions(store, selection));
        const progress = context.progress('sessions', total);
        const file = options.output === undefined ? undefined : createWriteStream(options.output);
        const out = file ?? context.io.stdout;
        let written = 0;
        try {
          for await (const line of exportSessions(store, {
            ...selection,
            ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
            onProgress: () => progress.increment(),
          })) {
            await write(out, line);
            written += 1;
          }
        } finally {
          progress.stop();
          if (file !== undefined) {
            file.end();
            await finished(file);
          }
        }
        if (options.output !== undefined) context.output.note(`exported ${written} lines to ${options.output}`);
      }),
    ),
);
