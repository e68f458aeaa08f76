/**
 * A thread's checkpoints as a viewer lists them: newest first, each with where it stands (the one
 * shown, one of its ancestors, a branch tip) and what LangGraph's metadata says of it (its source
 * and step), read without LangGraph.
 * @module
 */
import type { RecordIndex } from './record-index.js';
import type { CheckpointRecord } from './records.js';
import { countOf } from './ranges.js';
import type { ThreadSessions } from './thread-ids.js';

/** One checkpoint of a thread, as a viewer lists it. */
export interface CheckpointSummary {
  readonly id: string;
  readonly parent?: string;
  /** When LangGraph made it (ISO-8601). */
  readonly ts: string;
  /** LangGraph's `metadata.source`: `input`, `loop`, `update` or `fork`, when the metadata says. */
  readonly source?: string;
  /** LangGraph's `metadata.step`, when the metadata says. */
  readonly step?: number;
  /** Messages of its messages channel. */
  readonly messageCount: number;
  /** It is the checkpoint the view shows. */
  readonly current: boolean;
  /** It is the checkpoint shown or one of its ancestors. */
  readonly onPath: boolean;
  /** No checkpoint listed has it as parent: the end of a branch. */
  readonly tip: boolean;
}

/** The checkpoints listed, and the ancestors of the one shown. */
export interface CheckpointListing {
  /** The checkpoint shown. */
  readonly current: CheckpointSummary;
  /** The newest checkpoints, newest first. */
  readonly checkpoints: readonly CheckpointSummary[];
  /** More checkpoints are older than the last one listed. */
  readonly more: boolean;
  /** The ancestors of the checkpoint shown, its parent first. */
  readonly path: readonly string[];
  /** `path` reaches the thread's first checkpoint (else it stopped at its bound, or at a parent that is gone). */
  readonly pathComplete: boolean;
}

/** Source and step of a checkpoint's metadata when the serializer wrote it as JSON (its default); nothing otherwise. */
function aboutOf(record: CheckpointRecord): { source?: string; step?: number } {
  if (record.metadata.t !== 'json' || record.metadata.s === undefined) return {};
  let metadata: unknown;
  try {
    metadata = JSON.parse(record.metadata.s);
  } catch {
    return {};
  }
  if (typeof metadata !== 'object' || metadata === null) return {};
  const { source, step } = metadata as Record<string, unknown>;
  return {
    ...(typeof source === 'string' ? { source } : {}),
    ...(typeof step === 'number' && Number.isSafeInteger(step) ? { step } : {}),
  };
}

/** Messages of `record`'s `channel`. */
export function messageCountOf(record: CheckpointRecord, channel: string | undefined): number {
  const ref = channel === undefined ? undefined : record.messages[channel];
  return ref === undefined ? 0 : countOf(ref.ranges);
}

/**
 * The newest `limit` checkpoints of `sessions` (`newest`, read by the caller), and the ancestors
 * of `current` up to `maxPath` of them. A child is always newer than its parent (LangGraph's ids
 * are ordered by time), so a listed checkpoint that no listed one names as parent is a tip.
 */
export async function listCheckpoints(
  index: RecordIndex,
  sessions: ThreadSessions,
  newest: readonly CheckpointRecord[],
  current: CheckpointRecord,
  options: { readonly limit: number; readonly maxPath: number; readonly channel: string | undefined },
): Promise<CheckpointListing> {
  const listed = newest.slice(0, options.limit);
  const byId = new Map(newest.map((record) => [record.id, record]));
  const path: string[] = [];
  let parent = current.parent;
  let pathComplete = true;
  while (parent !== undefined) {
    if (path.length >= options.maxPath) {
      pathComplete = false;
      break;
    }
    const record = byId.get(parent) ?? (await index.find(sessions, parent));
    if (record === undefined) {
      pathComplete = false;
      break;
    }
    path.push(record.id);
    parent = record.parent;
  }
  const onPath = new Set([current.id, ...path]);
  const parents = new Set(listed.map((record) => record.parent));
  const summarize = (record: CheckpointRecord): CheckpointSummary => ({
    id: record.id,
    ...(record.parent === undefined ? {} : { parent: record.parent }),
    ts: record.ts,
    ...aboutOf(record),
    messageCount: messageCountOf(record, options.channel),
    current: record.id === current.id,
    onPath: onPath.has(record.id),
    tip: !parents.has(record.id),
  });
  return {
    current: summarize(current),
    checkpoints: listed.map(summarize),
    more: newest.length > listed.length,
    path,
    pathComplete,
  };
}
