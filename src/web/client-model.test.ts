/**
 * The browser client's pure parts, run under Node: row heights (the virtualized list's offsets),
 * the window of held messages (positions ↔ sequence numbers, chunk ranges), the grouping of
 * list rows into continuation chains, the names of sessions (a knowledge session's), and the
 * cached share of a session's input and of each turn's (the token chart's line).
 */
import { describe, expect, it } from 'vitest';
import { CACHED_SHARE_LABEL, cachedShareLayer, cachedShareText, drawsCachedShare } from './cached-share-line.js';
import { MAX_CHAIN_LINKS, MAX_GROUP_FORKS, groupRows, type ListGroup } from './chains.js';
import { Heights } from './heights.js';
import { formatShare } from './format.js';
import { CHUNK, MessageWindow } from './message-window.js';
import type { Message, SessionRow, Timeline, TimelinePoint } from './types.js';
import { cachedShareOf, shareWidth } from './usage-share.js';

function message(seq: number, extra: Partial<Message> = {}): Message {
  return {
    id: `m${seq}`,
    seq,
    role: 'user',
    category: 'dialog',
    content: `message ${seq}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    metadata: {},
    ...extra,
  };
}

describe('Heights', () => {
  it('gives offsets and the row at an offset, and follows measured heights', () => {
    const heights = new Heights(100_000, 80);
    expect(heights.total()).toBe(8_000_000);
    expect(heights.offsetOf(10)).toBe(800);
    expect(heights.indexAt(805)).toBe(10);
    expect(heights.set(5, 200)).toBe(120);
    expect(heights.offsetOf(10)).toBe(920);
    expect(heights.indexAt(919)).toBe(9);
    expect(heights.indexAt(1e12)).toBe(99_999);
    heights.resize(100_002);
    expect(heights.total()).toBe(8_000_000 + 120 + 160);
    expect(heights.get(5)).toBe(200);
  });
});

describe('MessageWindow', () => {
  it('fetches the tail without a map, the chunk before a held one by its first seq, any chunk with the map', () => {
    const window = new MessageWindow(250);
    expect(window.rangeOf(2)).toEqual({ limit: 50 });
    // Positions 50…249 held, seq 1001…1200.
    window.put(
      50,
      Array.from({ length: 200 }, (_, i) => message(1001 + i)),
    );
    expect(window.missing(0, 249)).toEqual([0]);
    // The last CHUNK before the first seq past the chunk: positions 0…99 (whatever their seqs).
    expect(window.rangeOf(0)).toEqual({ beforeSeq: 1051, limit: CHUNK });
    // Seqs with a gap: positions 0…49 are seq 10…59, then 1001…
    window.setRuns([
      [10, 50],
      [1001, 200],
    ]);
    expect(window.seqAt(0)).toBe(10);
    expect(window.seqAt(49)).toBe(59);
    expect(window.seqAt(50)).toBe(1001);
    expect(window.rangeOf(0)).toEqual({ afterSeq: 9, beforeSeq: 1051, limit: CHUNK });
    expect(window.indexOfSeq(30)).toBe(20);
  });

  it('appends live messages once, extending the map, and folds tool results into their calls', () => {
    const window = new MessageWindow(2);
    window.setRuns([[1, 2]]);
    window.put(0, [
      message(1, { role: 'assistant', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] }),
      message(2, { role: 'tool', toolCallId: 'c1' }),
    ]);
    expect(window.append([message(2), message(3), message(5)])).toBe(2);
    expect(window.count).toBe(4);
    expect(window.seqAt(2)).toBe(3);
    expect(window.seqAt(3)).toBe(5);
    expect(window.callIndex('c1')).toBe(0);
    expect(window.resultOf('c1')?.seq).toBe(2);
    expect(window.append([message(5)])).toBe(0);
  });

  it('keeps each message’s tokens by position, those of a live append too (its repeats left out)', () => {
    const window = new MessageWindow(2);
    window.put(0, [message(1), message(2)], [7, 11]);
    expect([window.tokensAt(0), window.tokensAt(1)]).toEqual([7, 11]);
    expect(window.append([message(2), message(3)], [11, 13])).toBe(1);
    expect(window.tokensAt(2)).toBe(13);
    // Without counts (an older server), the message is held all the same.
    expect(window.append([message(4)])).toBe(1);
    expect(window.tokensAt(3)).toBeUndefined();
  });
});

describe('groupRows', () => {
  const row = (id: string, extra: Partial<SessionRow> = {}): SessionRow => ({
    id,
    messageCount: 1,
    tokenCount: 1,
    version: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

  it('puts a chain together root first where its newest member stands, and a fork beside its source', () => {
    const rows = [
      row('c3', { continuedFrom: 'c2' }),
      row('alone'),
      row('c1', { continuedTo: 'c2' }),
      row('fork', { forkedFrom: { sessionId: 'c2', messageId: 'm1' } }),
      row('c2', { continuedFrom: 'c1', continuedTo: 'c3' }),
      row('orphan', { continuedFrom: 'not-on-this-page' }),
    ];
    const grouping = groupRows(rows);
    expect(ids(grouping.groups)).toEqual([
      { chain: ['c1', 'c2', 'c3'], forks: ['fork'] },
      { chain: ['alone'], forks: [] },
      { chain: ['orphan'], forks: [] },
    ]);
    // The link off the page is wanted; once it is known to be gone, nothing is.
    expect(grouping.wanted).toEqual(['not-on-this-page']);
    expect(groupRows(rows, new Map([['not-on-this-page', null]])).wanted).toEqual([]);
  });

  it('lists a fork its source names that is gone as gone, and wants it no more', () => {
    const source = row('source', { forks: ['gone-fork', 'fork'] });
    const fork = row('fork', { forkedFrom: { sessionId: 'source' } });
    expect(groupRows([source, fork]).wanted).toEqual(['gone-fork']);
    const grouping = groupRows([source, fork], new Map([['gone-fork', null]]));
    expect(grouping.wanted).toEqual([]);
    expect(grouping.groups).toHaveLength(1);
    expect(grouping.groups[0]?.gone).toEqual(['gone-fork']);
    expect(grouping.groups[0]?.pending).toBe(0);
    expect(ids(grouping.groups)).toEqual([{ chain: ['source'], forks: ['fork'] }]);
  });

  it('ends a walk over links that loop', () => {
    const rows = [
      row('a', { continuedFrom: 'b', continuedTo: 'b' }),
      row('b', { continuedFrom: 'a', continuedTo: 'a' }),
    ];
    expect(
      groupRows(rows)
        .groups.flatMap((group) => group.chain.map((member) => member.id))
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('shows a chain whole across pages: members off the loaded pages are wanted, then shown once', () => {
    // Page 1 holds the newest link and a fork whose source is on a later page.
    const c1 = row('c1', { continuedTo: 'c2' });
    const c2 = row('c2', { continuedFrom: 'c1', continuedTo: 'c3' });
    const c3 = row('c3', { continuedFrom: 'c2' });
    const source = row('source', { forks: ['old-fork', 'fork'] });
    const fork = row('fork', { forkedFrom: { sessionId: 'source', messageId: 'm1', seq: 1 } });
    const page1 = [c3, fork, row('alone')];
    const first = groupRows(page1);
    expect(first.wanted).toEqual(['c2', 'source']);
    expect(first.groups.map((group) => group.pending)).toEqual([1, 1, 0]);
    // The fetched summaries walk the chain one link further each time.
    const second = groupRows(
      page1,
      new Map([
        ['c2', c2],
        ['source', source],
      ]),
    );
    expect(second.wanted).toEqual(['c1', 'old-fork']);
    const fetched = new Map([
      ['c2', c2],
      ['source', source],
      ['c1', c1],
      ['old-fork', row('old-fork', { forkedFrom: { sessionId: 'source' } })],
    ]);
    const whole = groupRows(page1, fetched);
    expect(whole.wanted).toEqual([]);
    expect(ids(whole.groups)).toEqual([
      { chain: ['c1', 'c2', 'c3'], forks: [] },
      { chain: ['source'], forks: ['fork', 'old-fork'] },
      { chain: ['alone'], forks: [] },
    ]);
    // Page 2 loads, holding members already shown: they are not shown again.
    const both = groupRows([...page1, c1, source, row('later')], fetched);
    expect(ids(both.groups)).toEqual([...ids(whole.groups), { chain: ['later'], forks: [] }]);
  });

  it('keeps a group bounded: so many links each way, so many forks, the rest counted', () => {
    const chain = Array.from({ length: 3 * MAX_CHAIN_LINKS }, (_, i) =>
      row(`l${i}`, {
        ...(i === 0 ? {} : { continuedFrom: `l${i - 1}` }),
        ...(i === 3 * MAX_CHAIN_LINKS - 1 ? {} : { continuedTo: `l${i + 1}` }),
      }),
    );
    const middle = chain[MAX_CHAIN_LINKS + 10] as SessionRow;
    const forks = Array.from({ length: MAX_GROUP_FORKS + 5 }, (_, i) => `f${i}`);
    const fetched = new Map<string, SessionRow | null>(chain.map((link) => [link.id, link]));
    const [group] = groupRows([{ ...middle, forks }], fetched).groups;
    expect(group?.chain).toHaveLength(2 * MAX_CHAIN_LINKS + 1);
    const { wanted } = groupRows([{ ...middle, forks }], fetched);
    expect(wanted).toHaveLength(MAX_GROUP_FORKS);
    expect(wanted[0]).toBe(`f${MAX_GROUP_FORKS + 4}`);
    expect(group?.moreForks).toBe(5);
  });
});

function ids(groups: readonly ListGroup[]): Array<{ chain: string[]; forks: string[] }> {
  return groups.map((group) => ({
    chain: group.chain.map((member) => member.id),
    forks: group.forks.map((member) => member.id),
  }));
}

describe('the cached share', () => {
  const usage = { calls: 2, inputTokens: 6100, outputTokens: 30, cachedInputTokens: 2800, cacheWriteInputTokens: 2800 };

  it('is the server’s figure, else cache reads over input, and none without input', () => {
    expect(cachedShareOf({ ...usage, cachedShare: 0.25 })).toBe(0.25);
    expect(cachedShareOf(usage)).toBeCloseTo(2800 / 6100);
    // A server from before cache writes were counted.
    expect(cachedShareOf({ calls: 1, inputTokens: 100, outputTokens: 1, cachedInputTokens: 40 })).toBe(0.4);
    expect(cachedShareOf({ ...usage, inputTokens: 0, cachedInputTokens: 0 })).toBeUndefined();
  });

  it('reads as a percentage and a bar width, a dash and an empty bar without input', () => {
    expect(formatShare(2800 / 6100)).toBe('45.9%');
    expect(shareWidth(2800 / 6100)).toBe('45.9%');
    expect(formatShare(undefined)).toBe('–');
    expect(shareWidth(undefined)).toBe('0.0%');
  });
});

describe('the token chart’s cached share line', () => {
  const point = (x: number, extra: Partial<TimelinePoint> = {}): TimelinePoint => ({
    x,
    kind: 'turn',
    turn: x,
    index: x,
    messages: 2,
    tokens: { system: 0, context: 0, dialog: 100, tool_output: 0 },
    added: 100,
    toolCalls: 0,
    toolTokens: 0,
    ...extra,
  });
  const timeline = (points: TimelinePoint[]): Timeline => ({
    id: 's',
    version: 1,
    counter: 'estimate',
    messageCount: points.length * 2,
    turnCount: points.length,
    points,
    downsampled: false,
    marks: [],
    toolHeavy: [],
    seqRuns: [],
  });
  const measured = point(2, { usage: { calls: 2, inputTokens: 3100, cachedInputTokens: 2883 } });
  const noInput = point(3, { usage: { calls: 1, inputTokens: 0, cachedInputTokens: 0 } });
  const compaction = point(2.5, { kind: 'after-compaction' });

  it('says a turn’s share of its input tokens, nothing for a point without usage or input', () => {
    expect(cachedShareText(measured)).toBe('cached 93% of 3,100 input tokens');
    expect(cachedShareText(point(1))).toBeUndefined();
    expect(cachedShareText(noInput)).toBeUndefined();
  });

  it('is drawn only when some point has a share, in percent, with gaps where there is none', () => {
    expect(drawsCachedShare(timeline([point(1), noInput]))).toBe(false);
    expect(drawsCachedShare(timeline([point(1), measured]))).toBe(true);
    const layer = cachedShareLayer([point(1), measured, compaction, noInput], { line: '#000', axis: '#111' });
    expect(layer.values).toEqual([null, (2883 / 3100) * 100, null, null]);
    expect(layer.series).toMatchObject({ label: CACHED_SHARE_LABEL, scale: layer.scaleKey, spanGaps: true });
    expect(layer.axis).toMatchObject({ scale: layer.scaleKey, side: 1, label: CACHED_SHARE_LABEL });
    expect(layer.scale.range).toEqual([0, 100]);
  });
});
