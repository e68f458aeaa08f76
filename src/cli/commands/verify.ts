/**
 * `chatstate verify [ID…]`: reads every session (or those named) and checks checksums, seq and
 * version order, tool pairing, each provider format, the keys, and recovery notices. Exit 1 on
 * any problem; `--json` prints the report.
 * @module
 */
import { PROVIDERS, type ProviderName } from '../../message/schema.js';
import { countSessions, openWatched, selectionOf, verifySessions, type VerifyFinding } from '../../operations/index.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { integerOption, MAX_CONCURRENCY } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { storeOpenError, type CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { providerArgument } from '../providers.js';
import { progressTotal } from './export.js';

interface VerifyOptions {
  readonly provider?: ProviderName[];
  readonly concurrency?: number;
}

/** The command's store opened with a damage log (the file store reports what its reads repair), closed by the caller. */
export async function openForChecks(context: CliContext): Promise<Awaited<ReturnType<typeof openWatched>>> {
  // A mistyped store is refused, not checked as an empty one.
  await context.requireStore();
  const encryption = await context.encryptionKey();
  const userKeys = context.userKeys();
  try {
    return await openWatched(context.storeUrl, {
      ...(encryption === undefined ? {} : { encryption }),
      ...(userKeys === undefined ? {} : { userKeys }),
    });
  } catch (error) {
    throw storeOpenError(context.storeUrl, error);
  }
}

function line(finding: VerifyFinding): string {
  const what = finding.provider === undefined ? finding.check : `${finding.check} ${finding.provider}`;
  return `${finding.sessionId}  ${finding.severity === 'problem' ? 'problem' : 'notice'}  ${what}  ${finding.code}: ${finding.message}`;
}

/** Collects repeatable option values. */
export function repeated<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}

/** `verify`. */
export const verify = defineCommand('verify', (command) =>
  command
    .summary('check every session: checksums, order, tool pairing, provider formats, keys, recovery')
    .description(
      'Read every session (or those named) and check: records readable (checksums, encryption keys), seq and\n' +
        'version order, the index agreeing with the session, tool calls paired with results, the history valid in\n' +
        `each provider format (${PROVIDERS.join(', ')}), and recovery notices told. Prints one line a finding;\n` +
        'exits 1 when any session has a problem. --json prints the report. A file-store read repairs the damage\n' +
        'it finds (reported as a problem of this run; "chatstate repair" says what it did).',
    )
    .argument('[ids...]', 'the sessions to check (default: every session)')
    .option('--provider <name>', 'check only this provider format (repeatable)', repeated(providerArgument))
    .option('--concurrency <n>', 'sessions checked at once (default 4)', integerOption(1, MAX_CONCURRENCY))
    .addHelpText(
      'after',
      examples('verify', 'verify chat-1 --provider anthropic', 'verify --store sqlite:./chat.db --json'),
    )
    .action(
      action<VerifyOptions>(async (context, args, options) => {
        const { store, damage } = await openForChecks(context);
        try {
          return await run(context, store, damage, args, options);
        } finally {
          await store.close();
        }
      }),
    ),
);

async function run(
  context: CliContext,
  store: SessionStore,
  damage: Awaited<ReturnType<typeof openWatched>>['damage'],
  ids: string[],
  options: VerifyOptions,
): Promise<number> {
  const selection = selectionOf(ids.length === 0 ? { all: true } : { ids });
  const progress = context.progress('sessions', await progressTotal(context, () => countSessions(store, selection)));
  const lines: string[] = [];
  let report;
  try {
    report = await verifySessions(store, {
      ...selection,
      damage,
      ...(options.provider === undefined ? {} : { providers: options.provider }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      onProgress: () => progress.increment(),
      onFinding: (finding) => {
        if (!context.output.json) lines.push(line(finding));
      },
    });
  } finally {
    progress.stop();
  }
  if (context.output.json) await context.output.document(report);
  else {
    for (const text of lines) await context.output.line(text);
    const summary = `checked ${report.checked} session${report.checked === 1 ? '' : 's'}: ${report.failed === 0 ? 'no problems' : `${report.failed} with problems`}`;
    if (report.ok) context.output.note(summary);
    else await context.output.line(summary);
  }
  return report.ok ? EXIT.ok : EXIT.problems;
}
