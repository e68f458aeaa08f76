/**
 * `chatstate import FILE|-`: export lines, a session JSON, a provider wire history
 * (`--from PROVIDER`) or another system's files (`--from SYSTEM`) into the store.
 * @module
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import { KnowledgeGraph } from '../../active-memory/graph/knowledge-graph.js';
import { assertOwnerId } from '../../ids.js';
import {
  graphImporterFor,
  graphImporterNames,
  importerFor,
  importerNames,
  importerSettings,
  isGraphSystem,
} from '../../interchange/index.js';
import { PROVIDERS, type ProviderName } from '../../message/schema.js';
import {
  importSessions,
  inputsFromStream,
  itemsToInputs,
  type ImportInput,
  type ImportReport,
} from '../../operations/index.js';
import { integerOption, settingOption, MAX_CONCURRENCY } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';

interface ImportOptions {
  readonly from?: string;
  readonly replace?: boolean;
  readonly id?: string;
  readonly concurrency?: number;
  readonly set?: Readonly<Record<string, string>>;
  readonly user?: string;
}

/** Whose knowledge graph a graph import fills when --user names nobody (what `chatstate mcp` serves by default). */
const DEFAULT_GRAPH_USER = 'default';

/** What an import without `--from SYSTEM` reads (`from`: a provider's wire history), for its messages. */
function expectedInput(from: ProviderName | undefined): string {
  return from === undefined
    ? 'a file of chatstate export lines, a session JSON or JSON lines of sessions, or - for stdin'
    : `a wire history of ${from} (a JSON file), or - for stdin`;
}

async function openInput(path: string, stdin: Readable, from: ProviderName | undefined): Promise<Readable> {
  if (path === '-') return stdin;
  const expected = expectedInput(from);
  // A directory opens (and fails on the first read, with an untyped EISDIR): refused first.
  if ((await stat(path).catch(() => undefined))?.isDirectory() === true) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Cannot read ${JSON.stringify(path)}: it is a directory; expected ${expected} (another system's directory: --from ${importerNames().join('|')})`,
      { details: { path } },
    );
  }
  const stream = createReadStream(path);
  // Opened before reading, so a missing file is NOT_FOUND rather than a stream error later.
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', () => resolve());
    stream.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new NotFoundError(
          `Cannot read ${JSON.stringify(path)}: ${error.code === 'ENOENT' ? 'it does not exist' : (error.code ?? error.message)}; expected ${expected}`,
          { cause: error, details: { path } },
        ),
      ),
    );
  });
  return stream;
}

/**
 * `items` with its first item read now: a path the importer refuses (missing, of the wrong kind)
 * fails before the store is opened, so no new store is started for it.
 */
async function started<T>(items: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = items[Symbol.asyncIterator]();
  const first = await iterator.next();
  const rest: AsyncIterable<T> = { [Symbol.asyncIterator]: () => iterator };
  return (async function* () {
    if (first.done === true) return;
    yield first.value;
    yield* rest;
  })();
}

async function inputsOf(
  context: CliContext,
  path: string,
  options: ImportOptions,
): Promise<AsyncIterable<ImportInput>> {
  const from = options.from;
  if (from !== undefined && !(PROVIDERS as readonly string[]).includes(from)) {
    const importer = await importerFor(from, options.set);
    return itemsToInputs(await started(importer.read(path)));
  }
  if (options.set !== undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', '--set is for the importers of other systems (--from SYSTEM)');
  return inputsFromStream(await openInput(path, context.io.stdin, from as ProviderName | undefined), {
    path,
    ...(from === undefined ? {} : { from: from as ProviderName }),
    ...(options.id === undefined ? {} : { id: options.id }),
  });
}

async function print(context: CliContext, report: ImportReport): Promise<void> {
  const { output } = context;
  if (output.json) {
    await output.document(report);
    return;
  }
  for (const { sessionId, repairs } of report.repairs)
    for (const repair of repairs) output.note(`repaired ${sessionId}: ${repair.kind}: ${repair.message}`);
  for (const problem of report.problems) {
    const where =
      problem.source === undefined
        ? ''
        : `${problem.source.path}${problem.source.line === undefined ? '' : `:${problem.source.line}`}: `;
    output.warn(
      `${where}${problem.sessionId === undefined ? '' : `${problem.sessionId}: `}${problem.code}: ${problem.message}`,
    );
  }
  const parts = [`${report.created} imported`, `${report.unchanged} already there`];
  if (report.replaced > 0) parts.push(`${report.replaced} replaced`);
  if (report.expired > 0) parts.push(`${report.expired} expired (not written)`);
  if (report.problems.length > 0) parts.push(`${report.problems.length} not readable`);
  if (report.conflicts.length > 0) parts.push(`${report.conflicts.length} conflicts`);
  await output.line(parts.join(', '));
}

/**
 * `import --from mcp-memory FILE`: the file's graph merged into the user's knowledge graph in one
 * atomic write, or — when any line is bad — every bad line listed and nothing written (a graph is
 * one unit: half of one would hold relations to entities it lacks).
 */
async function importGraph(context: CliContext, system: string, path: string, options: ImportOptions): Promise<number> {
  if (options.replace === true || options.id !== undefined || options.set !== undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', `--replace, --id and --set are not for --from ${system}`);
  const userId = assertOwnerId(options.user ?? DEFAULT_GRAPH_USER, 'userId');
  // The file first: a missing one is refused before a new store is started for it.
  const read = await (await graphImporterFor(system)).read(path);
  const { output } = context;
  if (read.problems.length > 0) {
    if (output.json) await output.document({ userId, imported: false, problems: read.problems });
    else {
      for (const problem of read.problems)
        output.warn(`${problem.source.path}:${problem.source.line ?? '?'}: ${problem.code}: ${problem.message}`);
      await output.line(`nothing imported: ${read.problems.length} of ${read.lines} lines not readable`);
    }
    return EXIT.problems;
  }
  const store = await context.store(context.storeUrl, { create: true });
  const merged = await new KnowledgeGraph({ store, userId }).merge(read.graph);
  if (output.json) await output.document({ userId, imported: true, ...merged, problems: [] });
  else
    await output.line(
      `${merged.entities} entities, ${merged.observations} observations, ${merged.relations} relations imported into the knowledge graph of ${userId} (the rest was already there)`,
    );
  return EXIT.ok;
}

/** The importers' settings, for the help: `system: name, name`. */
function settingsHelp(): string {
  return importerNames()
    .filter((system) => Object.keys(importerSettings(system)).length > 0)
    .map((system) => `${system}: ${Object.keys(importerSettings(system)).join(', ')}`)
    .join('; ');
}

/** `import`. */
export const importCommand = defineCommand('import', (command) =>
  command
    .summary('import sessions: exports, session JSON, provider histories, other systems')
    .description(
      'Import into the store: the JSON lines of "chatstate export", a session JSON, JSON lines of sessions,\n' +
        `a provider wire history (--from ${PROVIDERS.join('|')}: a new session), or another system’s files\n` +
        `(--from ${importerNames().join('|') || 'SYSTEM'}). A session already in the store is skipped when equal; when it\n` +
        'differs, the import lists it as a CONFLICT (exit 1) unless --replace. Bad lines and records are listed\n' +
        '(exit 1) and the good sessions are imported.',
    )
    .argument('<file>', 'the file (a directory or database for some systems), or - for stdin')
    .option('--from <provider|system>', 'read a provider wire history or another system’s format')
    .option('--replace', 'overwrite sessions that are already there and differ')
    .option('--id <id>', 'the id of the session a wire history becomes (default: a new id)')
    .option('--concurrency <n>', 'sessions written at once (default 4)', integerOption(1, MAX_CONCURRENCY))
    .option('--set <name=value>', `a setting of the system's importer (repeatable): ${settingsHelp()}`, settingOption)
    .option(
      '--user <id>',
      `with --from ${graphImporterNames().join('|')}: whose knowledge graph (default ${DEFAULT_GRAPH_USER})`,
    )
    .addHelpText(
      'after',
      examples(
        'import backup.jsonl',
        'import --store sqlite:./chat.db - < backup.jsonl',
        'import --from openaiChat --id support-7 messages.json',
        'import --from penguin ./conversations',
        'import --from langgraph --set channel=history checkpoints.sqlite',
        'import --from mcp-memory --user alice ~/.mcp/memory.jsonl',
      ),
    )
    .action(
      action<ImportOptions>(async (context, args, options) => {
        const [path] = args as [string];
        if (options.from !== undefined && isGraphSystem(options.from))
          return importGraph(context, options.from, path, options);
        if (options.user !== undefined)
          throw new InvalidInputError('INVALID_ARGUMENT', `--user is for --from ${graphImporterNames().join('|')}`);
        // The input first: a missing file is refused before a new store is started for it.
        const inputs = await inputsOf(context, path, options);
        const store = await context.store(context.storeUrl, { create: true });
        const progress = context.progress('sessions');
        let report: ImportReport;
        try {
          report = await importSessions(store, inputs, {
            mode: options.replace === true ? 'replace' : 'skip',
            ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
            onProgress: () => progress.increment(),
          });
        } finally {
          progress.stop();
        }
        await print(context, report);
        if (report.conflicts.length > 0) {
          const ids = report.conflicts.map((conflict) => conflict.sessionId);
          throw new ConflictError(
            `${ids.length} session${ids.length === 1 ? '' : 's'} already in the store differ${ids.length === 1 ? 's' : ''}: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''} (--replace overwrites them)`,
            { details: { sessionIds: ids } },
          );
        }
        return report.problems.length > 0 ? EXIT.problems : EXIT.ok;
      }),
    ),
);
