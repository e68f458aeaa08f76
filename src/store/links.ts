/**
 * The links a list row carries, read from a session's metadata: its place in a continuation chain
 * (`continuedFrom`, `continuedTo`), where it was forked from (`forkedFrom`) and its own forks
 * (`forks`). Metadata is anyone's to write: what is not a link of the right shape is left out.
 * @module
 */
import type { JsonObject } from '../message/schema.js';
import { FORKS_KEY, MAX_FORK_ENTRIES, forkLog } from '../session/fork-log.js';
import type { SessionSummary } from './session-store-types.js';

/** The link fields of a list row. */
export type SessionLinks = Pick<SessionSummary, 'continuedFrom' | 'continuedTo' | 'forkedFrom' | 'forks'>;

/** Text that plain head data holds when its metadata may have a link: data without any is not parsed. */
export const LINK_MARKS: readonly string[] = ['"continued', '"forkedFrom"', `"${FORKS_KEY}"`];

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The links `metadata` holds (only those it has). */
export function linksOfMetadata(metadata: JsonObject): SessionLinks {
  const { continuedFrom, continuedTo, forkedFrom } = metadata;
  const fork =
    typeof forkedFrom === 'object' && forkedFrom !== null && !Array.isArray(forkedFrom)
      ? (forkedFrom as JsonObject)
      : {};
  const { sessionId: source, messageId: at, seq } = fork;
  // Bounded here too: a caller may write any metadata, and every list row would carry it.
  const forks = forkLog(metadata)
    .slice(-MAX_FORK_ENTRIES)
    .map((entry) => entry.sessionId);
  return {
    ...(typeof continuedFrom === 'string' ? { continuedFrom } : {}),
    ...(typeof continuedTo === 'string' ? { continuedTo } : {}),
    ...(typeof source === 'string'
      ? {
          forkedFrom: {
            sessionId: source,
            ...(typeof at === 'string' ? { messageId: at } : {}),
            ...(isSeq(seq) ? { seq } : {}),
          },
        }
      : {}),
    ...(forks.length === 0 ? {} : { forks }),
  };
}
