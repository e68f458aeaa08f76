/**
 * `chatstate working-memory show|patch|history --user U [--agent A]`: a user's working memory (an
 * agent's, with `--agent`) — the newest document, a JSON merge patch applied to it (kept with
 * every concurrent writer's), and every version with who wrote it and when.
 * @module
 */
import type { Command } from 'commander';
import { WorkingMemory, type WorkingMemoryVersion } from '../../active-memory/working-memory.js';
import { InvalidInputError } from '../../errors.js';
import type { JsonObject } from '../../message/schema.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { parseJson } from '../input.js';
import type { Column } from '../output.js';

interface OwnerOptions {
  readonly user: string;
  readonly agent?: string;
}

function owned(command: Command): Command {
  return command
    .requiredOption('--user <id>', 'whose working memory')
    .option('--agent <id>', "that agent's own working memory of the user");
}

function memoryOf(store: SessionStore, options: OwnerOptions): WorkingMemory {
  return new WorkingMemory({
    store,
    userId: options.user,
    ...(options.agent === undefined ? {} : { agentId: options.agent }),
  });
}

const COLUMNS: ReadonlyArray<Column<WorkingMemoryVersion>> = [
  { header: 'VERSION', width: 7, alignRight: true, value: (version) => String(version.version) },
  { header: 'AT', width: 24, value: (version) => version.at ?? '' },
  { header: 'BY', width: 20, value: (version) => version.by ?? '', style: () => 'cyan' },
  {
    header: 'PATCH',
    width: 0,
    value: (version) => (version.patch === undefined ? '(created)' : JSON.stringify(version.patch).slice(0, 200)),
  },
];

/** `working-memory`. */
export const workingMemory = defineCommand('working-memory', (command) => {
  command
    .summary("show, patch and list the versions of a user's working memory")
    .description(
      "A user's working memory: one JSON document an agent sees in its system prompt and changes with JSON merge patches.\n" +
        'Every version is kept, with who wrote it and when; --agent names an agent that keeps one of its own.',
    )
    .addHelpText(
      'after',
      examples(
        'working-memory show --user alice',
        'working-memory patch \'{"city":"Oslo","oldNote":null}\' --user alice',
        'working-memory history --user alice --agent coach --json',
      ),
    );
  owned(command.command('show'))
    .description('print the newest document (version 0, {}, before any)')
    .action(
      action<OwnerOptions>(async (context, _args, options) => {
        const current = await memoryOf(await context.store(), options).read();
        if (context.output.json) await context.output.record(current);
        else {
          await context.output.line(JSON.stringify(current.document, null, 2));
          context.output.note(`version ${current.version}${current.by === undefined ? '' : ` by ${current.by}`}`);
        }
      }),
    );
  owned(command.command('patch'))
    .description('apply a JSON merge patch (RFC 7396): fields set, null removes one; prints the new document')
    .argument('<patch>', 'the merge patch, a JSON object')
    .option('--expected-version <n>', 'apply only to this version (else exit 1 with CONFLICT)', integerOption(0))
    .option('--by <who>', 'who makes the change, kept with the version', 'cli')
    .action(
      action<OwnerOptions & { readonly expectedVersion?: number; readonly by: string }>(
        async (context, args, options) => {
          const patch = parseJson(args[0] as string, 'PATCH');
          if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
            throw new InvalidInputError('INVALID_ARGUMENT', 'PATCH must be a JSON object (a merge patch)');
          const store = await context.store(context.storeUrl, { create: true });
          const next = await memoryOf(store, options).update(patch as JsonObject, {
            by: options.by,
            ...(options.expectedVersion === undefined ? {} : { expectedVersion: options.expectedVersion }),
          });
          if (context.output.json) await context.output.record(next);
          else await context.output.line(JSON.stringify(next.document, null, 2));
          context.output.note(`version ${next.version}`);
        },
      ),
    );
  owned(command.command('history'))
    .description('every version, oldest first (the newest --limit)')
    .option('--limit <n>', 'most versions', integerOption(1), 50)
    .action(
      action<OwnerOptions & { readonly limit: number }>(async (context, _args, options) => {
        const page = await memoryOf(await context.store(), options).history({ limit: Math.min(options.limit, 1000) });
        await context.output.table(COLUMNS, page.versions, (version) => version);
        if (page.versions.length === 0) context.output.note('no versions');
      }),
    );
});
