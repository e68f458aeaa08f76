/**
 * One `list` over many buckets (the Redis Cluster layout): each bucket lists its own sessions in
 * list order, and a lazy k-way merge of their pages gives the one total order of every store —
 * `updatedAt` descending, then `id` ascending — with `offset` and `limit` applied to the merged
 * rows. A bucket is read again (after its last row, with a doubled page) only when the merge has
 * used every row it gave, so a page of `limit` rows costs about `limit` rows plus one small page
 * per bucket, however many buckets there are.
 *
 * A session lives in exactly one bucket, so no session is listed twice and none is made up. The
 * pages of different buckets are read at slightly different moments: a session written during the
 * call may be listed at its old place, or (moved ahead of the rows already read) left out of this
 * page, as between two keyset pages of any store.
 * @module
 */
import type { HeadRecord } from '../../store/driver-types.js';
import type { ListCursor } from '../../store/session-store-types.js';

/** Reads one bucket: at most `limit` rows strictly after `after` in list order. */
export type BucketPage = (bucket: number, after: ListCursor | undefined, limit: number) => Promise<HeadRecord[]>;

/** What `mergedList` needs of the query: the core has checked and filled it. */
export interface MergeQuery {
  readonly offset: number;
  readonly limit: number;
  readonly after?: ListCursor;
}

// A bucket's page never grows past this: it bounds how long one script blocks its node.
const MAX_PAGE = 1000;

/** List order: `updatedAt` descending (by its milliseconds, as the index scores it), then `id` ascending by code unit. */
export function listOrder(a: HeadRecord, b: HeadRecord): number {
  const newer = Date.parse(b.updatedAt) - Date.parse(a.updatedAt);
  if (newer !== 0) return newer;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface Source {
  readonly bucket: number;
  rows: HeadRecord[];
  next: number;
  after: ListCursor | undefined;
  page: number;
  done: boolean;
}

/** The rows `offset` … `offset + limit` of the merged order of `buckets` buckets. */
export async function mergedList(buckets: number, query: MergeQuery, read: BucketPage): Promise<HeadRecord[]> {
  const wanted = query.offset + query.limit;
  if (wanted === 0) return [];
  // The first pages: twice a bucket's fair share, so that most buckets are read once.
  const first = Math.min(MAX_PAGE, wanted, Math.ceil((2 * wanted) / buckets) + 1);
  const sources: Source[] = Array.from({ length: buckets }, (_, bucket) => ({
    bucket,
    rows: [],
    next: 0,
    after: query.after,
    page: first,
    done: false,
  }));
  const fill = async (source: Source): Promise<void> => {
    const rows = await read(source.bucket, source.after, source.page);
    source.rows = rows;
    source.next = 0;
    // A short page is the bucket's last: its script scans until its index ends or the page is full.
    if (rows.length < source.page) source.done = true;
    const last = rows.at(-1);
    if (last !== undefined) source.after = { updatedAt: last.updatedAt, id: last.id };
    source.page = Math.min(MAX_PAGE, source.page * 2);
  };
  const merged: HeadRecord[] = [];
  const seen = new Set<string>();
  while (merged.length < wanted) {
    // A bucket that has given every row it read, and may have more, is read before the merge goes on.
    const drained = sources.filter((source) => !source.done && source.next >= source.rows.length);
    if (drained.length > 0) {
      await Promise.all(drained.map(fill));
      continue;
    }
    let best: Source | undefined;
    for (const source of sources) {
      const row = source.rows[source.next];
      if (row === undefined) continue;
      const top = best?.rows[best.next];
      if (top === undefined || listOrder(row, top) < 0) best = source;
    }
    if (best === undefined) break;
    const row = best.rows[best.next] as HeadRecord;
    best.next += 1;
    // A session moved behind a bucket's cursor between two of its pages (a save that kept an older
    // updatedAt) comes again: the first sighting stands.
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    merged.push(row);
  }
  return merged.slice(query.offset);
}
