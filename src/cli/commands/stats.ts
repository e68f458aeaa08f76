/**
 * `chatstate stats SESSION | --all`: tokens by category, tool usage, the measured usage of model
 * calls with the share of input the provider's cache served, and for a stored session the totals of
 * its continuation chain.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { SessionManager } from '../../manager/session-manager.js';
import type { Category } from '../../message/schema.js';
import type { HistoryStats } from '../../session/stats.js';
import { usageTotals } from '../../session/usage-totals.js';
import { action, defineCommand, examples } from '../command.js';
import type { CliContext } from '../context.js';
import { counterNamed, counterOption } from '../counters.js';
import type { Output } from '../output.js';
import { sessionFrom } from '../session-source.js';
import { addUsageCounts, emptyUsage, usageJson, usageLines, type UsageSum } from '../usage-summary.js';
import { listAll } from './list.js';
import { SESSION_ADDRESSING } from './show.js';

interface StatsOptions {
  readonly all?: boolean;
  readonly counter: string;
}

const CATEGORIES: readonly Category[] = ['system', 'context', 'dialog', 'tool_output'];

async function writeStats(output: Output, stats: HistoryStats): Promise<void> {
  await output.line(
    `messages   ${stats.messages}  (${Object.entries(stats.byRole)
      .map(([role, count]) => `${role} ${count}`)
      .join(', ')})`,
  );
  await output.line(`tokens     ${stats.tokens.total}  (counter ${stats.tokens.counter})`);
  for (const category of CATEGORIES) {
    await output.line(
      `  ${category.padEnd(12)} ${String(stats.byCategory[category]).padStart(6)} messages ${String(stats.tokens.byCategory[category]).padStart(9)} tokens`,
    );
  }
  await output.line(`tool calls ${stats.toolCalls.total}, results ${stats.toolResults}`);
  const names = Object.entries(stats.toolCalls.byName).sort((a, b) => b[1] - a[1]);
  for (const [name, count] of names) await output.line(`  ${name.padEnd(24)} ${String(count).padStart(6)}`);
}

/** Statistics summed over every session of the store. */
interface StoreTotals {
  sessions: number;
  messages: number;
  tokens: number;
  byCategory: Record<Category, { messages: number; tokens: number }>;
  toolCalls: Record<string, number>;
  toolResults: number;
  usage: UsageSum;
}

async function storeTotals(context: CliContext, counterName: string): Promise<StoreTotals> {
  const store = await context.store();
  const counter = counterNamed(counterName);
  const totals: StoreTotals = {
    sessions: 0,
    messages: 0,
    tokens: 0,
    byCategory: {
      system: { messages: 0, tokens: 0 },
      context: { messages: 0, tokens: 0 },
      dialog: { messages: 0, tokens: 0 },
      tool_output: { messages: 0, tokens: 0 },
    },
    toolCalls: Object.create(null) as Record<string, number>,
    toolResults: 0,
    usage: emptyUsage(),
  };
  const ids: string[] = [];
  for await (const summary of listAll(store)) ids.push(summary.id);
  const progress = context.progress('sessions', ids.length);
  try {
    for (const id of ids) {
      // One session in memory at a time; a session deleted since the listing is skipped.
      const session = await store.get(id);
      progress.increment();
      if (session === undefined) continue;
      const stats = session.stats(counter);
      totals.sessions++;
      totals.messages += stats.messages;
      totals.tokens += stats.tokens.total;
      for (const category of CATEGORIES) {
        totals.byCategory[category].messages += stats.byCategory[category];
        totals.byCategory[category].tokens += stats.tokens.byCategory[category];
      }
      for (const [name, count] of Object.entries(stats.toolCalls.byName))
        totals.toolCalls[name] = (totals.toolCalls[name] ?? 0) + count;
      totals.toolResults += stats.toolResults;
      addUsageCounts(totals.usage, usageTotals(session.history));
    }
  } finally {
    progress.stop();
  }
  return totals;
}

/** `stats`. */
export const stats = defineCommand('stats', (command) =>
  command
    .summary('tokens by category, tool usage and chain totals')
    .description(
      'Statistics of one session: messages by role, messages and tokens by category, tool calls by name,\n' +
        "and the usage the model calls measured: input tokens, the cached share (input the provider's\n" +
        'prompt cache served), cache writes, output tokens.\n' +
        'For a session in a store, also the totals of its continuation chain (every linked session).\n' +
        'With --all, the totals over every session of the store.\n\n' +
        SESSION_ADDRESSING,
    )
    .argument('[session]', 'session id, session JSON file, - for stdin, or file-store session directory')
    .option('--all', 'totals over every session of the store')
    .addOption(counterOption())
    .addHelpText(
      'after',
      examples(
        'stats trip-lisbon',
        'stats --all --store sqlite:./chat.db --json',
        'stats session.json --counter o200k_base',
      ),
    )
    .action(
      action<StatsOptions>(async (context, args, options) => {
        const reference = args[0];
        if ((reference === undefined) === (options.all !== true)) {
          throw new InvalidInputError('INVALID_ARGUMENT', 'stats takes a session or --all (one of them)');
        }
        const output = context.output;
        if (reference === undefined) {
          const totals = await storeTotals(context, options.counter);
          if (output.json)
            return void (await output.document({
              counter: options.counter,
              ...totals,
              toolCalls: { ...totals.toolCalls },
              usage: usageJson(totals.usage),
            }));
          await output.line(`sessions   ${totals.sessions}`);
          await output.line(`messages   ${totals.messages}`);
          await output.line(`tokens     ${totals.tokens}  (counter ${options.counter})`);
          for (const category of CATEGORIES) {
            const { messages, tokens } = totals.byCategory[category];
            await output.line(
              `  ${category.padEnd(12)} ${String(messages).padStart(8)} messages ${String(tokens).padStart(10)} tokens`,
            );
          }
          await output.line(`tool results ${totals.toolResults}`);
          for (const [name, count] of Object.entries(totals.toolCalls).sort((a, b) => b[1] - a[1]))
            await output.line(`  ${name.padEnd(24)} ${String(count).padStart(8)}`);
          for (const line of usageLines(totals.usage)) await output.line(line);
          return;
        }
        const counter = counterNamed(options.counter);
        const { session, store } = await sessionFrom(context, reference, 'stats');
        const sessionStats = session.stats(counter);
        const usage = usageTotals(session.history);
        let chain;
        if (store !== undefined) {
          const manager = new SessionManager({ store, autoSaveIntervalMs: false, counter });
          try {
            chain = await manager.chainStats(session.id);
          } finally {
            await manager.close();
          }
        }
        if (output.json)
          return void (await output.document({
            id: session.id,
            ...sessionStats,
            usage: {
              ...usageJson(usage),
              byModel: Object.fromEntries(
                Object.entries(usage.byModel).map(([model, counts]) => [model, usageJson(counts)]),
              ),
            },
            ...(chain === undefined ? {} : { chain }),
          }));
        await output.line(output.style('bold', `session ${session.id}`));
        await writeStats(output, sessionStats);
        for (const line of usageLines(usage)) await output.line(line);
        if (chain !== undefined && chain.links.length > 1) {
          await output.line(
            `chain      ${chain.links.length} sessions, ${chain.messageCount} messages, ${chain.tokenCount} tokens`,
          );
          for (const link of chain.links)
            await output.line(
              `  ${link.id === session.id ? '*' : ' '} ${link.id.padEnd(28)} ${String(link.messageCount).padStart(6)} messages ${String(link.tokenCount).padStart(9)} tokens`,
            );
        }
        if (chain !== undefined && chain.missing.length > 0)
          output.warn(`the chain links to sessions that no longer exist: ${chain.missing.join(', ')}`);
      }),
    ),
);
