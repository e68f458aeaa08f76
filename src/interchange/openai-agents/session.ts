/**
 * What both OpenAI Agents sources do once a session's items are read: map them, validate and
 * pair the messages, and build the session item — with the items no message could hold, the
 * rows that were not JSON and the items that could not be read kept verbatim in its metadata.
 * @module
 */
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { materialize, sessionIdOr, sessionItem } from '../build.js';
import { uniqueMessageIds } from '../import-ids.js';
import type { ImportItem, ImportRepair, SourcePlace } from '../types.js';
import { mapItems, type SourceItem } from './items.js';

/** Everything a session of either source needs once its items are read. */
export interface ItemsSession {
  readonly key: string;
  readonly items: readonly SourceItem[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly imported: JsonObject;
  /** Text of items that were not JSON, kept verbatim. */
  readonly unreadable: readonly JsonValue[];
  readonly source: SourcePlace;
  /** The place of one item, for its problem. */
  placeOf(item: SourceItem): SourcePlace;
}

/** The problems of `read`'s unreadable items, then its session. */
export function* sessionItems(read: ItemsSession): Generator<ImportItem> {
  const mapped = mapItems(read.items);
  for (const problem of mapped.problems)
    yield { kind: 'problem', code: 'INVALID_ARGUMENT', message: problem.message, source: read.placeOf(problem.item) };
  const repairs: ImportRepair[] = [...mapped.repairs];
  const built = materialize(mapped.drafts, 'openaiAgents', repairs);
  const unique = uniqueMessageIds(built.messages);
  repairs.push(...unique.repairs);
  const openaiAgents: Record<string, JsonValue> = {};
  if (mapped.leftover.length > 0) openaiAgents['items'] = mapped.leftover;
  if (built.skipped.length > 0) openaiAgents['skipped'] = built.skipped;
  const unreadItems = mapped.problems.map((problem) => problem.item.value as JsonValue);
  if (read.unreadable.length > 0 || unreadItems.length > 0)
    openaiAgents['unreadable'] = [...read.unreadable, ...unreadItems];
  const metadata: JsonObject = {
    imported: read.imported,
    ...(Object.keys(openaiAgents).length > 0 ? { openaiAgents } : {}),
  };
  yield sessionItem(
    { id: sessionIdOr(read.key, read.key).id, createdAt: read.createdAt, updatedAt: read.updatedAt, metadata },
    unique.messages,
    repairs,
    read.source,
  );
}
