import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HeadRecord } from '../../store/driver-types.js';
import type { ListCursor } from '../../store/session-store-types.js';
import { listOrder, mergedList, type BucketPage } from './list-merge.js';

const head = (id: string, ms: number): HeadRecord => ({
  id,
  schema: 1,
  version: 1,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: new Date(ms).toISOString(),
  messageCount: 0,
  tokenCount: 0,
  lastSeq: 0,
  data: '{}',
});

const after = (row: HeadRecord, cursor: ListCursor | undefined): boolean =>
  cursor === undefined || listOrder(row, head(cursor.id, Date.parse(cursor.updatedAt))) > 0;

/** Buckets as the list script answers them: their rows in list order, strictly after the cursor, at most `limit`; every read counted. */
function buckets(rows: readonly HeadRecord[], count: number, bucketOf: (id: string) => number) {
  const sorted = [...rows].sort(listOrder);
  const reads: Array<{ bucket: number; limit: number; rows: number }> = [];
  const read: BucketPage = async (bucket, cursor, limit) => {
    const page = sorted.filter((row) => bucketOf(row.id) === bucket && after(row, cursor)).slice(0, limit);
    reads.push({ bucket, limit, rows: page.length });
    return page;
  };
  return { sorted, reads, read, count };
}

describe('mergedList', () => {
  it('merges buckets into one order, updatedAt descending then id ascending, with offset, limit and cursor', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z0-9._-]{1,6}$/), fc.integer({ min: 0, max: 4 })), {
          selector: ([id]) => id,
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (entries, count, offset, limit, cursorAt) => {
          const rows = entries.map(([id, minute]) => head(id, minute * 60_000));
          const { sorted, read } = buckets(rows, count, (id) => id.charCodeAt(0) % count);
          const cursorRow =
            cursorAt === undefined || sorted.length === 0 ? undefined : sorted[cursorAt % sorted.length];
          const cursor = cursorRow === undefined ? undefined : { updatedAt: cursorRow.updatedAt, id: cursorRow.id };
          const expected = sorted.filter((row) => after(row, cursor)).slice(offset, offset + limit);
          const merged = await mergedList(
            count,
            { offset, limit, ...(cursor === undefined ? {} : { after: cursor }) },
            read,
          );
          expect(merged.map((row) => row.id)).toEqual(expected.map((row) => row.id));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads about a page of rows however many buckets there are, and a bucket again only when the merge used it up', async () => {
    const rows = Array.from({ length: 6400 }, (_, index) => head(`s${index}`, index * 1000));
    const { read, reads } = buckets(rows, 64, (id) => Number(id.slice(1)) % 64);
    const page = await mergedList(64, { offset: 0, limit: 100 }, read);
    expect(page.map((row) => row.id)).toEqual(Array.from({ length: 100 }, (_, index) => `s${6399 - index}`));
    // One read per bucket: rows spread evenly, and each first page holds twice a bucket's share, plus one.
    expect(reads).toHaveLength(64);
    expect(reads.every((entry) => entry.limit === Math.ceil((2 * 100) / 64) + 1)).toBe(true);
  });

  it('reads a bucket that holds the whole page again, with growing pages, and no other bucket twice', async () => {
    const rows = [
      ...Array.from({ length: 50 }, (_, index) => head(`hot${String(index).padStart(2, '0')}`, 10_000_000 - index)),
      ...Array.from({ length: 63 }, (_, index) => head(`cold${index}`, index)),
    ];
    const { read, reads } = buckets(rows, 64, (id) => (id.startsWith('hot') ? 0 : 1 + Number(id.slice(4))));
    const page = await mergedList(64, { offset: 0, limit: 40 }, read);
    expect(page.map((row) => row.id)).toEqual(rows.slice(0, 40).map((row) => row.id));
    const hot = reads.filter((entry) => entry.bucket === 0);
    expect(hot.map((entry) => entry.limit)).toEqual([3, 6, 12, 24]);
    expect(reads.filter((entry) => entry.bucket !== 0)).toHaveLength(63);
  });

  it('lists a session once even when it is read twice (a save that kept an older updatedAt moved it behind the cursor)', async () => {
    let calls = 0;
    // Eight buckets, the sessions all in the first: its first page holds two rows.
    const read: BucketPage = async (bucket, cursor) => {
      if (bucket !== 0) return [];
      calls += 1;
      if (cursor === undefined) return [head('a', 3000), head('b', 2000)];
      return [head('a', 1000), head('c', 500)];
    };
    const merged = await mergedList(8, { offset: 0, limit: 4 }, read);
    expect(merged.map((row) => [row.id, row.updatedAt])).toEqual([
      ['a', new Date(3000).toISOString()],
      ['b', new Date(2000).toISOString()],
      ['c', new Date(500).toISOString()],
    ]);
    expect(calls).toBe(2);
  });

  it('asks nothing for an empty page', async () => {
    const merged = await mergedList(64, { offset: 0, limit: 0 }, () => Promise.reject(new Error('read')));
    expect(merged).toEqual([]);
  });
});
