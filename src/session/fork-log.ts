/**
 * A session's fork log: each fork of it leaves an entry in `metadata.forks` naming the fork and
 * where it was taken (the last message it copied). The fork points back by `metadata.forkedFrom`;
 * without this log a source could not tell its forks without scanning every session.
 * @module
 */
import type { JsonObject, JsonValue } from '../message/schema.js';

/** The metadata key of the log. */
export const FORKS_KEY = 'forks';

/** Entries kept; the oldest leave first, so a session forked forever keeps a bounded log. */
export const MAX_FORK_ENTRIES = 100;

/** One fork, as its source's log keeps it. */
export interface ForkEntry {
  /** Id of the fork. */
  readonly sessionId: string;
  /** The last message the fork copied. */
  readonly messageId?: string;
  /** That message's sequence number (the same in the source and in the fork). */
  readonly seq?: number;
  /** When the fork was made (its `createdAt`, ISO-8601). */
  readonly createdAt: string;
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The entry as JSON (only the fields it has). */
function entryJson(entry: ForkEntry): JsonObject {
  return {
    sessionId: entry.sessionId,
    ...(entry.messageId === undefined ? {} : { messageId: entry.messageId }),
    ...(entry.seq === undefined ? {} : { seq: entry.seq }),
    createdAt: entry.createdAt,
  };
}

/**
 * `metadata` with `entry` added to its log, oldest first. An entry for the same fork is replaced
 * (recording a fork again, after a retry or a replay, adds nothing); past `MAX_FORK_ENTRIES` the
 * oldest entries are dropped.
 */
export function withForkEntry(metadata: JsonObject, entry: ForkEntry): JsonObject {
  const previous = metadata[FORKS_KEY];
  const log = (Array.isArray(previous) ? (previous as readonly JsonValue[]) : []).filter(
    (item) => forkEntryOf(item)?.sessionId !== entry.sessionId,
  );
  return { ...metadata, [FORKS_KEY]: [...log.slice(-(MAX_FORK_ENTRIES - 1)), entryJson(entry)] };
}

/**
 * `metadata` without the log's entries for fork `forkId` (a fork that was deleted); the same object
 * when the log names no such fork, so a caller can tell there is nothing to write.
 */
export function withoutForkEntry(metadata: JsonObject, forkId: string): JsonObject {
  const previous = metadata[FORKS_KEY];
  if (!Array.isArray(previous)) return metadata;
  const log = previous as readonly JsonValue[];
  const kept = log.filter((item) => forkEntryOf(item)?.sessionId !== forkId);
  return kept.length === log.length ? metadata : { ...metadata, [FORKS_KEY]: kept };
}

/** One entry of the log, or `undefined` for anything that is not one (metadata is anyone's to write). */
function forkEntryOf(item: unknown): ForkEntry | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const entry = item as Record<string, unknown>;
  if (typeof entry.sessionId !== 'string' || typeof entry.createdAt !== 'string') return undefined;
  return {
    sessionId: entry.sessionId,
    ...(typeof entry.messageId === 'string' ? { messageId: entry.messageId } : {}),
    ...(isSeq(entry.seq) ? { seq: entry.seq } : {}),
    createdAt: entry.createdAt,
  };
}

/** The fork log of `metadata`, oldest first; what is not an entry is left out. */
export function forkLog(metadata: JsonObject): ForkEntry[] {
  const log = metadata[FORKS_KEY];
  if (!Array.isArray(log)) return [];
  const entries: ForkEntry[] = [];
  for (const item of log as readonly unknown[]) {
    const entry = forkEntryOf(item);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}
