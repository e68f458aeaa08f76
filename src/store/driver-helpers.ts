/**
 * Pure helpers drivers share: version checks, the head arithmetic of an append, seq ranges and
 * list ordering — so that every backend computes them the same way.
 * @module
 */
import { ChatstateError, ClosedError, ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { AppendCommit, DriverListQuery, HeadRecord, MessageRecord, SessionMarkRecord } from './driver-types.js';
import type { ListCursor, MessageRange } from './session-store-types.js';
import { isSessionKind, kindListed } from './session-kind.js';

/** What a listing can read of a stored head row even when the row is damaged. */
export interface RawHeadColumns {
  readonly id: unknown;
  readonly userId: unknown;
  readonly agentId: unknown;
  readonly createdAt: unknown;
  readonly updatedAt: unknown;
  /** The kind column, when the backend has one (a damaged row keeps its place in a listing by kind). */
  readonly kind?: unknown;
}

/**
 * `decode(row)` for a row of a listing; a row it refuses as damaged (`CORRUPT`) is listed by its
 * readable columns with `damage` saying why, so a listing never fails for one bad row and an admin
 * sees the session and can delete it. A row without a readable id is left out (nothing could
 * name it). Its `updatedAt` stays the stored one: a cursor paging past it must match the query's order.
 */
export function listedHead<Row>(
  row: Row,
  decode: (row: Row) => HeadRecord,
  raw: (row: Row) => RawHeadColumns,
): HeadRecord | undefined {
  try {
    return decode(row);
  } catch (error) {
    if (!(error instanceof ChatstateError) || error.code !== 'CORRUPT') throw error;
    const columns = raw(row);
    if (typeof columns.id !== 'string') return undefined;
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    const userId = text(columns.userId);
    const agentId = text(columns.agentId);
    const updatedAt = text(columns.updatedAt) ?? new Date(0).toISOString();
    const kind = isSessionKind(columns.kind) ? columns.kind : undefined;
    return Object.freeze({
      id: columns.id,
      schema: 0,
      version: 0,
      ...(userId === undefined ? {} : { userId }),
      ...(agentId === undefined ? {} : { agentId }),
      ...(kind === undefined ? {} : { kind }),
      createdAt: text(columns.createdAt) ?? updatedAt,
      updatedAt,
      messageCount: 0,
      tokenCount: 0,
      lastSeq: 0,
      data: '',
      damage: error.message,
    });
  }
}

/** True when a session expiring at `expiresAt` has expired at `now` (no check without `now` or without an expiry). */
export function isExpired(expiresAt: number | null | undefined, now: number | undefined): boolean {
  return now !== undefined && expiresAt !== undefined && expiresAt !== null && expiresAt <= now;
}

/** The `NOT_FOUND` every store answers for a session that does not exist (or has expired). */
export function noSessionError(store: string, id: string): NotFoundError {
  return new NotFoundError(`${store}: no session ${JSON.stringify(id)}`, { details: { id } });
}

/** The `CLOSED` every store answers once it has been closed. */
export function closedError(store: string): ClosedError {
  return new ClosedError(`${store}: the store is closed`, { details: { store } });
}

/**
 * The `name` option every built-in store takes (the store's name in its errors and `store.name`):
 * `fallback` when it is not given; `INVALID_ARGUMENT` unless it is a non-empty string.
 */
export function storeName(name: unknown, fallback: string): string {
  if (name === undefined) return fallback;
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${fallback}: name must be a non-empty string`);
  return name;
}

/** Throws `CONFLICT` unless `expected` is undefined or equals `actual`. */
export function checkVersion(store: string, id: string, actual: number, expected: number | undefined): void {
  if (expected !== undefined && expected !== actual) {
    throw new ConflictError(`${store}: session ${JSON.stringify(id)} is at version ${actual}, not ${expected}`, {
      details: { id, actual, expected },
    });
  }
}

/**
 * A session's stored key check is not the one a commit expected: nothing was written. The core
 * resolves it (another writer rotated keys: it retries; a wrong key: it refuses with `WRONG_KEY`).
 */
export class KeyCheckMismatch extends ChatstateError {
  constructor(
    store: string,
    id: string,
    readonly stored: string,
  ) {
    super('WRONG_KEY', `${store}: session ${JSON.stringify(id)} is sealed with other keys than the write expected`, {
      details: { id },
    });
  }
}

/** Throws `KeyCheckMismatch` unless `expected` is undefined or equals the stored key check. */
export function checkKeys(store: string, id: string, stored: string | undefined, expected: string | undefined): void {
  if (expected !== undefined && (stored ?? '') !== expected) throw new KeyCheckMismatch(store, id, stored ?? '');
}

/** `head` with the kind `kind` (`''` removes it; `undefined` keeps the head's). */
export function withKind(head: HeadRecord, kind: string | undefined): HeadRecord {
  if (kind === undefined || kind === (head.kind ?? '')) return head;
  const { kind: _old, ...rest } = head;
  return kind === '' ? rest : { ...rest, kind };
}

/** `head` with the key check `keys` (`''` removes it). */
export function withKeys(head: HeadRecord, keys: string | undefined): HeadRecord {
  if (keys === undefined || keys === (head.keys ?? '')) return head;
  const { keys: _old, ...rest } = head;
  return keys === '' ? rest : { ...rest, keys };
}

/** A tail replace that gives a message id the kept part of the session holds: refused, nothing changed. */
export function reusedIdError(store: string, id: string, messageId: string): InvalidInputError {
  return new InvalidInputError(
    'INVALID_ARGUMENT',
    `${store}: message id ${JSON.stringify(messageId)} is already stored in session ${JSON.stringify(id)}`,
    { details: { id, messageId } },
  );
}

/** The head after an append and the records it adds (skipping ids `has` already knows). */
export function appendToHead(
  head: HeadRecord,
  commit: AppendCommit,
  has: (messageId: string) => boolean,
): { head: HeadRecord; appended: MessageRecord[]; duplicates: string[] } {
  const appended: MessageRecord[] = [];
  const duplicates: string[] = [];
  let seq = head.lastSeq;
  let tokens = 0;
  let title = head.title;
  for (const message of commit.messages) {
    if (has(message.id)) {
      duplicates.push(message.id);
      continue;
    }
    seq += 1;
    appended.push(Object.freeze({ seq, id: message.id, data: message.data }));
    tokens += message.tokens;
    title ??= message.title;
  }
  if (appended.length === 0) return { head, appended, duplicates };
  const updatedAt = commit.updatedAt;
  const next: HeadRecord = {
    ...head,
    version: head.version + 1,
    updatedAt,
    messageCount: head.messageCount + appended.length,
    tokenCount: head.tokenCount + tokens,
    lastSeq: seq,
    ...(title === undefined ? {} : { title }),
    ...(commit.data === undefined ? {} : { data: commit.data }),
    ...(head.ttlMs === undefined ? {} : { expiresAt: Date.parse(updatedAt) + head.ttlMs }),
  };
  return { head: Object.freeze(withKind(withKeys(next, commit.keys?.next), commit.kind)), appended, duplicates };
}

/** How many of `items` (ascending by seq) have a seq below `seq`: a binary search, O(log n). */
export function countBelow(items: ReadonlyArray<{ readonly seq: number }>, seq: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((items[mid] as { readonly seq: number }).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The records of `range` from ascending `records`: the last `limit` of those in the seq window. */
export function rangeOf(records: readonly MessageRecord[], range: MessageRange): MessageRecord[] {
  const after = range.afterSeq ?? 0;
  const before = range.beforeSeq ?? Number.POSITIVE_INFINITY;
  // Binary search for the window's end: a tail read costs O(log n + limit), not O(n).
  const end = countBelow(records, before);
  let start = end;
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  while (start > 0 && end - start < limit && (records[start - 1] as MessageRecord).seq > after) start -= 1;
  return records.slice(start, end);
}

/**
 * True when `head` comes strictly after `cursor` in list order: `updatedAt` descending (compared
 * as the ISO text it is stored as), then `id` ascending.
 */
export function isAfterCursor(head: Pick<HeadRecord, 'updatedAt' | 'id'>, cursor: ListCursor): boolean {
  return head.updatedAt < cursor.updatedAt || (head.updatedAt === cursor.updatedAt && head.id > cursor.id);
}

/**
 * The first string after every session id that starts with `prefix` (a `list` filter as an id range): ids hold only characters below `~`,
 * so in byte order they all lie in [prefix, prefix + '~').
 */
export function prefixEnd(prefix: string): string {
  return `${prefix}~`;
}

/**
 * Heads filtered by owner, kind, expiry (live ones, or with `expired` only the expired ones) and cursor,
 * in list order (newest activity first, then `id` ascending), paged.
 */
/** What `listMarks` tells of a head as `list` gives it (a damaged row keeps its damage, with zero counts). */
export function markOfHead(head: HeadRecord): SessionMarkRecord {
  const { id, version, createdAt, messageCount, tokenCount, damage } = head;
  return { id, version, createdAt, messageCount, tokenCount, ...(damage === undefined ? {} : { damage }) };
}

/**
 * The marks of `userId`'s sessions among `heads` live at `now` (a driver that holds every head), in
 * list order: recall's index numbers documents in the order of the marks, and its ties go to the
 * higher number, so the listing's order keeps rankings what they were when marks came from `list`.
 */
export function marksOfHeads(heads: Iterable<HeadRecord>, userId: string, now: number): SessionMarkRecord[] {
  const mine: HeadRecord[] = [];
  for (const head of heads) if (head.userId === userId && !isExpired(head.expiresAt, now)) mine.push(head);
  return mine.sort(byListOrder).map(markOfHead);
}

/** List order: `updatedAt` descending, then `id` ascending. */
function byListOrder(a: HeadRecord, b: HeadRecord): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1;
}

export function sortAndPage(heads: readonly HeadRecord[], query: DriverListQuery): HeadRecord[] {
  const { after, expired = false } = query;
  return heads
    .filter(
      (head) =>
        (query.userId === undefined || head.userId === query.userId) &&
        (query.agentId === undefined || head.agentId === query.agentId) &&
        isExpired(head.expiresAt, query.now) === expired &&
        (after === undefined || isAfterCursor(head, after)) &&
        (query.idPrefix === undefined || head.id.startsWith(query.idPrefix)) &&
        kindListed(head.kind, query.kinds),
    )
    .sort(byListOrder)
    .slice(query.offset, query.offset + query.limit);
}
