/**
 * `chatstate search QUERY --user U`: recall over a user's history and knowledge (active memory's
 * `recall`, the same ranking an agent gets).
 * @module
 */
import { createSessionHandle } from '../../active-memory/session-handle.js';
import { knowledgeSessionId } from '../../active-memory/knowledge.js';
import { MAX_RECALL_K } from '../../active-memory/checks.js';
import { integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import { EXIT } from '../exit-codes.js';
import type { Column } from '../output.js';
import type { RecallHit } from '../../active-memory/types.js';

interface SearchOptions {
  readonly user: string;
  readonly limit: number;
  readonly asOf?: string;
  readonly includeSuperseded?: boolean;
}

const COLUMNS: ReadonlyArray<Column<RecallHit>> = [
  { header: 'SCORE', width: 6, alignRight: true, value: (hit) => hit.score.toFixed(3) },
  {
    header: 'SESSION',
    width: 28,
    value: (hit) => (hit.source === 'knowledge' ? 'knowledge' : hit.sessionId),
    style: (hit) => (hit.source === 'knowledge' ? 'magenta' : 'cyan'),
  },
  { header: 'SEQ', width: 5, alignRight: true, value: (hit) => String(hit.seq) },
  { header: 'TEXT', width: 0, value: (hit) => hit.text.replace(/\s+/g, ' ').slice(0, 200) },
];

/** `search`. */
export const search = defineCommand('search', (command) =>
  command
    .summary("recall over a user's history")
    .description(
      "Search a user's sessions and knowledge for QUERY with active memory's recall (the store's full-text search, or an in-process index), best first.\n" +
        'Exits 1 when nothing matches.',
    )
    .argument('<query>', 'words to look for')
    .requiredOption('--user <id>', 'the user whose history is searched')
    .option('--limit <n>', `most results (at most ${MAX_RECALL_K})`, integerOption(1, MAX_RECALL_K), 10)
    .option('--as-of <time>', 'answer as of this ISO-8601 time: messages written by then, facts valid then')
    .option('--include-superseded', 'also show facts a later fact superseded')
    .addHelpText(
      'after',
      examples('search "window seat" --user alice', 'search lisbon --user demo-user --json --store file:./.chatstate'),
    )
    .action(
      action<SearchOptions>(async (context, args, options) => {
        const store = await context.store();
        // A handle on the user's knowledge session: recall covers all of the user's sessions from any of them.
        const handle = createSessionHandle({
          store,
          sessionId: knowledgeSessionId(options.user),
          userId: options.user,
        });
        const hits = await handle.recall(args[0] as string, {
          k: Math.min(options.limit, MAX_RECALL_K),
          ...(options.asOf === undefined ? {} : { asOf: options.asOf }),
          ...(options.includeSuperseded === true ? { includeSuperseded: true } : {}),
        });
        await context.output.table(COLUMNS, hits, (hit) => hit);
        return hits.length === 0 ? EXIT.problems : EXIT.ok;
      }),
    ),
);
