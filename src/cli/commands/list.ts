/**
 * `chatstate list`: the sessions of a store, newest activity first, streamed page by page.
 * @module
 */
import { Option } from 'commander';
import type { ListQuery, SessionStore, SessionSummary } from '../../store/session-store-types.js';
import { dateOption, integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';
import type { Column } from '../output.js';

interface ListOptions {
  readonly user?: string;
  readonly agent?: string;
  readonly since?: number;
  readonly expiring?: boolean;
  readonly expired?: boolean;
  readonly sort: 'updated' | 'created';
  readonly limit?: number;
  readonly offset: number;
  readonly all?: boolean;
}

/** Rows fetched from the store at a time. */
const PAGE = 500;

/**
 * Every summary the store lists for the filters, page by page, newest activity first. Pages follow
 * the last row (`after`), so a session deleted meanwhile makes the listing skip no other one.
 */
export async function* listAll(
  store: SessionStore,
  filter: Pick<ListQuery, 'userId' | 'agentId' | 'expired' | 'kinds'> = {},
): AsyncGenerator<SessionSummary> {
  let after: SessionSummary | undefined;
  for (;;) {
    const page = await store.list({ ...filter, limit: PAGE, after });
    yield* page;
    if (page.length < PAGE) return;
    after = page.at(-1);
  }
}

/** A row of the listing. */
interface Row {
  readonly summary: SessionSummary;
}

function flags(row: Row): string {
  return [
    // An internal session (listed with --all) shows its kind first.
    row.summary.kind ?? '',
    row.summary.expiresAt === undefined ? '' : `expires ${row.summary.expiresAt.slice(0, 10)}`,
    (row.summary.recovery?.length ?? 0) > 0 ? 'recovered' : '',
    row.summary.damaged === undefined ? '' : 'damaged',
  ]
    .filter((flag) => flag !== '')
    .join(',');
}

const COLUMNS: ReadonlyArray<Column<Row>> = [
  {
    header: 'ID',
    width: 28,
    value: (row) => row.summary.id,
    style: (row) => (row.summary.kind === undefined ? 'cyan' : 'magenta'),
  },
  { header: 'USER', width: 14, value: (row) => row.summary.userId ?? '-' },
  { header: 'AGENT', width: 12, value: (row) => row.summary.agentId ?? '-' },
  { header: 'MSGS', width: 6, alignRight: true, value: (row) => String(row.summary.messageCount) },
  { header: 'TOKENS', width: 8, alignRight: true, value: (row) => String(row.summary.tokenCount) },
  { header: 'UPDATED', width: 20, value: (row) => row.summary.updatedAt.slice(0, 19).replace('T', ' ') },
  {
    header: 'FLAGS',
    width: 24,
    value: flags,
    style: (row) =>
      row.summary.damaged !== undefined ? 'red' : (row.summary.recovery?.length ?? 0) > 0 ? 'yellow' : undefined,
  },
  { header: 'TITLE', width: 0, value: (row) => row.summary.title ?? '', style: () => 'dim' },
];

async function* rows(store: SessionStore, options: ListOptions): AsyncGenerator<Row> {
  const source = listAll(store, {
    ...(options.user === undefined ? {} : { userId: options.user }),
    ...(options.agent === undefined ? {} : { agentId: options.agent }),
    ...(options.expired === true ? { expired: true } : {}),
    ...(options.all === true ? { kinds: 'all' as const } : {}),
  });
  let ordered: AsyncIterable<SessionSummary> = source;
  if (options.sort === 'created') {
    // The stores order by activity only: creation order needs every row first.
    const all: SessionSummary[] = [];
    for await (const summary of source) all.push(summary);
    all.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    ordered = (async function* () {
      yield* all;
    })();
  }
  let skipped = 0;
  let given = 0;
  for await (const summary of ordered) {
    if (options.limit !== undefined && given >= options.limit) return;
    if (options.since !== undefined && Date.parse(summary.updatedAt) < options.since) {
      // Newest activity first: nothing after this row is recent enough.
      if (options.sort === 'updated') return;
      continue;
    }
    if (options.expiring === true && summary.expiresAt === undefined) continue;
    if (skipped < options.offset) {
      skipped++;
      continue;
    }
    given++;
    yield { summary };
  }
}

/** `list`. */
export const list = defineCommand('list', (command) =>
  command
    .summary('list sessions, newest activity first')
    .description(
      'List the sessions of the store, newest activity first (or newest created with --sort created).\n' +
        "Rows stream as the store returns them. The sessions chatstate keeps for itself (active memory's\n" +
        'knowledge and working memory, LangGraph checkpoint logs, …) are listed only with --all, their kind flagged.\n' +
        'A table on a terminal; JSON lines (one summary each) with --json.',
    )
    .option('--user <id>', 'only sessions of this user')
    .option('--agent <id>', 'only sessions of this agent')
    .option('--since <iso-date>', 'only sessions active since this date', dateOption)
    // Stores treat an expired session as gone (no read returns it): only --expired lists those.
    .option('--expiring', 'only sessions with a retention limit (expired ones are not listed: see --expired)')
    .option('--expired', 'only sessions whose retention ended and that purge-expired has not removed yet')
    .addOption(new Option('--sort <key>', 'order').choices(['updated', 'created']).default('updated'))
    .option('--limit <n>', 'at most this many rows', integerOption(1))
    .option('--offset <n>', 'skip this many rows first', integerOption(0), 0)
    .option('--all', "also list chatstate's internal sessions (knowledge, working memory, checkpoint logs, …)")
    .addHelpText(
      'after',
      examples(
        'list --user alice --since 2026-01-01',
        'list --store sqlite:./chat.db --json --limit 10',
        'list --expired --json',
        'list --all --user alice',
      ),
    )
    .action(
      action<ListOptions>(async (context, _args, options) => {
        const store = await context.store();
        const count = await context.output.table(COLUMNS, rows(store, options), (row) => row.summary);
        if (count === 0) context.output.note('no sessions');
      }),
    ),
);
