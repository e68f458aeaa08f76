/**
 * A session's compaction log: each compaction leaves an entry in `metadata.compactions` saying
 * where it cut (after which message), which strategy, and the tokens by category before and
 * after. A compaction replaces the history, so without the log nothing stored would tell where it
 * happened or how much it removed (the web session browser's token chart marks each one).
 * @module
 */
import type { Message } from '../message/message.js';
import { CATEGORIES, type Category, type JsonObject, type JsonValue } from '../message/schema.js';
import { countMessages } from '../compaction/turns.js';
import { cachedCounter, type TokenCounter } from '../tokens/counter.js';

/** The metadata key of the log. */
export const COMPACTIONS_KEY = 'compactions';

/** Entries kept; the oldest leave first, so a session compacted forever keeps a bounded log. */
export const MAX_COMPACTION_ENTRIES = 100;

/** Tokens of a history by category, and their total. */
export type CategoryTokens = Readonly<Record<Category, number>> & { readonly total: number };

/** One compaction, as the log keeps it. */
export interface CompactionEntry {
  /** When it happened (ISO-8601). */
  readonly at: string;
  /** The strategy's name (`tokenLimit`, `summarize`, …). */
  readonly strategy: string;
  /** The newest message when it ran: the compaction happened right after it. */
  readonly afterMessageId?: string;
  /** That message's sequence number, when it was stored: where the compaction stands in the session's life. */
  readonly afterSeq?: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  /** The counter the tokens are counted with. */
  readonly counter: string;
  readonly tokensBefore: CategoryTokens;
  readonly tokensAfter: CategoryTokens;
}

/** The entry of a compaction from history `before` to history `after`. */
export function compactionEntry(
  before: readonly Message[],
  after: readonly Message[],
  strategy: string,
  counter: TokenCounter,
): CompactionEntry {
  // The compaction counted `before` with the same cached wrapper, and kept its counts: no message
  // is counted twice, and of `after` only what the compaction added (a summary) is counted.
  const cached = cachedCounter(counter);
  const { counts } = countMessages(before, cached);
  const known = new Map<Message, number>();
  const tokensBefore = sumByCategory(before, (message, i) => {
    const count = counts[i] as number;
    known.set(message, count);
    return count;
  });
  const tokensAfter = sumByCategory(after, (message) => known.get(message) ?? cached.countMessage(message));
  const last = before.at(-1);
  return {
    at: new Date().toISOString(),
    strategy,
    ...(last === undefined ? {} : { afterMessageId: last.id }),
    ...(last?.seq === undefined ? {} : { afterSeq: last.seq }),
    messagesBefore: before.length,
    messagesAfter: after.length,
    counter: counter.name,
    tokensBefore,
    tokensAfter,
  };
}

function sumByCategory(
  messages: readonly Message[],
  countOf: (message: Message, index: number) => number,
): CategoryTokens {
  const counts: Record<Category, number> = { system: 0, context: 0, dialog: 0, tool_output: 0 };
  let total = 0;
  messages.forEach((message, i) => {
    const count = countOf(message, i);
    counts[message.category] += count;
    total += count;
  });
  return { ...counts, total };
}

/** `metadata` with `entry` added to its log (the oldest entries dropped past `MAX_COMPACTION_ENTRIES`). */
export function withCompactionEntry(metadata: JsonObject, entry: CompactionEntry): JsonObject {
  const previous = metadata[COMPACTIONS_KEY];
  const log = Array.isArray(previous) ? (previous as readonly JsonValue[]) : [];
  return {
    ...metadata,
    [COMPACTIONS_KEY]: [...log.slice(-(MAX_COMPACTION_ENTRIES - 1)), entry as unknown as JsonValue],
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function readTokens(value: unknown): CategoryTokens | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (!isCount(record.total) || !CATEGORIES.every((category) => isCount(record[category]))) return undefined;
  return {
    system: record.system as number,
    context: record.context as number,
    dialog: record.dialog as number,
    tool_output: record.tool_output as number,
    total: record.total,
  };
}

/** The log of `metadata`, oldest first; an entry that is not one (metadata is anyone's to write) is left out. */
export function compactionLog(metadata: JsonObject): CompactionEntry[] {
  const log = metadata[COMPACTIONS_KEY];
  if (!Array.isArray(log)) return [];
  const entries: CompactionEntry[] = [];
  for (const item of log as readonly unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const entry = item as Record<string, unknown>;
    const tokensBefore = readTokens(entry.tokensBefore);
    const tokensAfter = readTokens(entry.tokensAfter);
    if (
      typeof entry.at !== 'string' ||
      typeof entry.strategy !== 'string' ||
      !isCount(entry.messagesBefore) ||
      !isCount(entry.messagesAfter) ||
      tokensBefore === undefined ||
      tokensAfter === undefined
    )
      continue;
    entries.push({
      at: entry.at,
      strategy: entry.strategy,
      ...(typeof entry.afterMessageId === 'string' ? { afterMessageId: entry.afterMessageId } : {}),
      ...(isCount(entry.afterSeq) ? { afterSeq: entry.afterSeq } : {}),
      messagesBefore: entry.messagesBefore,
      messagesAfter: entry.messagesAfter,
      counter: typeof entry.counter === 'string' ? entry.counter : 'unknown',
      tokensBefore,
      tokensAfter,
    });
  }
  return entries;
}
