/**
 * The token chart (uPlot): tokens of the context by category, stacked, turn by turn, against the
 * context window; every compaction marked with its tokens before → after, summaries and cuts
 * marked, tool-heavy turns flagged; the cached share of each turn's input, when measured, as a
 * line on a right axis (cached-share-line.ts). Hovering (or the arrow keys) shows a turn; clicking
 * (or Enter) jumps to it. The points are also a table, for keyboards, screen readers and tests.
 */
import uPlot from 'uplot';
import { useEffect, useRef, useState } from 'preact/hooks';
import { cachedShareLayer, cachedShareText, drawsCachedShare } from './cached-share-line.js';
import { LABELS, drawnCategories, drawnWindow, peakOf, totalOf } from './chart-data.js';
import { ChartLegend } from './chart-legend.js';
import { formatCount, formatTokens, preview } from './format.js';
import { CATEGORIES, type Category, type Timeline, type TimelinePoint } from './types.js';

/** Props of the chart. */
export interface TokenChartProps {
  readonly timeline: Timeline;
  /** Reads the first message of a turn hovered (its preview). */
  readonly firstMessageOf: (seq: number) => Promise<string | undefined>;
  /** Jumps to the message at this position. */
  readonly onJump: (index: number) => void;
  /** Changes when the theme does (colours are read from the style sheet). */
  readonly dark: boolean;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** A point's tokens by category, in words. */
function describe(point: TimelinePoint): string {
  return CATEGORIES.map((category) => `${LABELS[category].toLowerCase()} ${formatTokens(point.tokens[category])}`).join(
    ', ',
  );
}

/**
 * The stacked series of `categories` (in stacking order), top first: uPlot fills each from zero
 * up to its level, in order, each over the one before — so with opaque fills each band shows its
 * own colour alone, the colour its legend entry shows.
 */
function stacked(points: readonly TimelinePoint[], categories: readonly Category[]): number[][] {
  const levels = categories.map((category) =>
    points.map((point) =>
      CATEGORIES.slice(0, CATEGORIES.indexOf(category) + 1).reduce((sum, below) => sum + point.tokens[below], 0),
    ),
  );
  return levels.reverse();
}

function drawMarks(u: uPlot, timeline: Timeline): void {
  const { ctx } = u;
  const { top, height, left, width } = u.bbox;
  const ratio = devicePixelRatio;
  ctx.save();
  ctx.font = `${11 * ratio}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  let labelRow = 0;
  for (const mark of timeline.marks) {
    const x = Math.round(u.valToPos(mark.x, 'x', true));
    if (x < left || x > left + width) continue;
    const colour = cssVar(`--mark-${mark.kind}`);
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = 1.5 * ratio;
    ctx.setLineDash([4 * ratio, 3 * ratio]);
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    const label =
      mark.kind === 'compaction'
        ? `${formatTokens(mark.tokensBefore ?? 0)} → ${formatTokens(mark.tokensAfter ?? 0)}`
        : mark.kind === 'summary'
          ? 'summary'
          : `cut ${formatCount(mark.removedMessages ?? 0)}`;
    // Near the right edge the label goes to the left of its line, so it is never cut off.
    const room = ctx.measureText(label).width + 6 * ratio;
    const leftward = x + room > left + width;
    ctx.textAlign = leftward ? 'right' : 'left';
    ctx.fillText(label, leftward ? x - 3 * ratio : x + 3 * ratio, top + 2 * ratio + (labelRow % 3) * 13 * ratio);
    labelRow += 1;
  }
  ctx.setLineDash([]);
  ctx.fillStyle = cssVar('--mark-tool');
  for (const heavy of timeline.toolHeavy) {
    const x = u.valToPos(heavy.x, 'x', true);
    const y = top + height;
    ctx.beginPath();
    ctx.moveTo(x, y - 8 * ratio);
    ctx.lineTo(x - 4 * ratio, y);
    ctx.lineTo(x + 4 * ratio, y);
    ctx.closePath();
    ctx.fill();
  }
  ctx.restore();
}

/** The chart with its hover panel and data table. */
export function TokenChart({ timeline, onJump, dark, firstMessageOf }: TokenChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const [hover, setHover] = useState<number | undefined>(undefined);
  const [previews, setPreviews] = useState<ReadonlyMap<number, string>>(new Map());
  const points = timeline.points;

  // The hovered turn's first message, read once a pointer rests on it (and kept).
  const hoveredSeq = hover === undefined ? undefined : points[hover]?.kind === 'turn' ? points[hover]?.seq : undefined;
  useEffect(() => {
    if (hoveredSeq === undefined || previews.has(hoveredSeq)) return undefined;
    const timer = setTimeout(() => {
      firstMessageOf(hoveredSeq).then(
        (text) => setPreviews((known) => new Map(known).set(hoveredSeq, preview(text ?? '', 160))),
        () => undefined,
      );
    }, 150);
    return () => clearTimeout(timer);
  }, [hoveredSeq]);

  useEffect(() => {
    const element = holder.current;
    if (element === null || points.length === 0) return undefined;
    // By sequence number: it only grows over a session's life, so rises and drops come in order.
    const x = points.map((point) => point.x);
    const peak = peakOf(points);
    // A window far above the session would flatten it: then the line is left out and the text says so.
    const window = drawnWindow(timeline);
    // Only the categories that hold tokens: an empty one would still stroke a line along the others.
    const categories = drawnCategories(timeline);
    const order = [...categories].reverse();
    const single = points.length === 1;
    const share = drawsCachedShare(timeline)
      ? cachedShareLayer(points, { line: cssVar('--cached'), axis: cssVar('--muted') })
      : undefined;
    const bars = uPlot.paths.bars?.({ size: [0.5, 64] });
    const series: uPlot.Series[] = [
      { label: 'Turn' },
      ...order.map((category) => ({
        label: LABELS[category],
        stroke: cssVar(`--cat-${category}`),
        fill: cssVar(`--cat-${category}-fill`),
        width: 1,
        points: { show: false },
        // One point makes no line nor area: it is drawn as a stacked bar, in the areas' colours.
        ...(single ? { paths: bars } : {}),
      })),
      ...(window === undefined
        ? []
        : [{ label: 'Context window', stroke: cssVar('--window'), width: 1.5, dash: [6, 4], points: { show: false } }]),
      ...(share === undefined ? [] : [share.series]),
    ];
    const data = [
      x,
      ...stacked(points, categories),
      ...(window === undefined ? [] : [points.map(() => window)]),
      ...(share === undefined ? [] : [share.values]),
    ] as uPlot.AlignedData;
    const maxY = Math.max(window ?? 0, peak) * 1.08;
    const u = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 260,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: {
          x: { time: false },
          y: { range: [0, Math.max(1, maxY)] },
          ...(share === undefined ? {} : { [share.scaleKey]: share.scale }),
        },
        axes: [
          {
            label: 'message (sequence number)',
            stroke: cssVar('--muted'),
            grid: { stroke: cssVar('--grid') },
            incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000],
            values: (_, ticks) => ticks.map((tick) => formatCount(tick)),
          },
          {
            label: 'tokens',
            stroke: cssVar('--muted'),
            grid: { stroke: cssVar('--grid') },
            size: 60,
            values: (_, ticks) => ticks.map((tick) => formatTokens(tick)),
          },
          ...(share === undefined ? [] : [share.axis]),
        ],
        series,
        hooks: {
          draw: [(chart) => drawMarks(chart, timeline)],
          setCursor: [(chart) => setHover(chart.cursor.idx ?? undefined)],
        },
      },
      data,
      element,
    );
    plot.current = u;
    const click = (): void => {
      const idx = u.cursor.idx;
      const point = idx === null || idx === undefined ? undefined : points[idx];
      if (point !== undefined) onJump(point.index);
    };
    u.over.addEventListener('click', click);
    const observer = new ResizeObserver(() => u.setSize({ width: Math.max(320, element.clientWidth), height: 260 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      u.over.removeEventListener('click', click);
      u.destroy();
      plot.current = undefined;
    };
  }, [timeline, dark]);

  /** Arrow keys, Home and End move along the points; Enter jumps to the one shown. */
  const onKey = (event: KeyboardEvent): void => {
    const u = plot.current;
    if (u === undefined || points.length === 0) return;
    const current = hover ?? points.length - 1;
    let next = current;
    if (event.key === 'ArrowLeft') next = Math.max(0, current - 1);
    else if (event.key === 'ArrowRight') next = Math.min(points.length - 1, current + 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = points.length - 1;
    else if (event.key === 'Enter') {
      const point = points[current];
      if (point !== undefined) onJump(point.index);
      return;
    } else return;
    event.preventDefault();
    const point = points[next] as TimelinePoint;
    u.setCursor({ left: u.valToPos(point.x, 'x'), top: u.valToPos(totalOf(point), 'y') });
    setHover(next);
  };

  const shown = hover === undefined ? undefined : points[hover];
  const shownShare = shown === undefined ? undefined : cachedShareText(shown);
  const withShare = drawsCachedShare(timeline);
  const compactions = timeline.marks.filter((mark) => mark.kind === 'compaction').length;
  return (
    <section class="chart card" aria-labelledby="chart-title" data-testid="token-chart">
      <h2 id="chart-title">Tokens by category</h2>
      <p class="muted">
        {formatCount(timeline.turnCount)} turns held
        {timeline.downsampled ? ' (downsampled: each point the peak of its span)' : ''}
        {timeline.contextWindow === undefined
          ? ''
          : ` · context window ${formatTokens(timeline.contextWindow)}${drawnWindow(timeline) === undefined ? ' (far above this session: not drawn)' : ''}`}
        {` · ${compactions} compaction${compactions === 1 ? '' : 's'} · counted by ${timeline.counter}`}
      </p>
      <ChartLegend timeline={timeline} />
      <div
        ref={holder}
        class="chart-canvas"
        tabIndex={0}
        role="img"
        aria-label="Stacked tokens by category over the session. Arrow keys (and Home, End) move between points, Enter opens the one shown."
        onKeyDown={onKey}
      />
      <div class="hover" aria-live="polite" data-testid="chart-hover">
        {shown === undefined ? (
          <span class="muted">Hover a point (or focus the chart and use the arrow keys); click to open it.</span>
        ) : shown.kind === 'turn' ? (
          <span>
            <strong>
              Turn {shown.turn + 1} of {timeline.turnCount} held
            </strong>{' '}
            (to message #{Math.round(shown.x)}) · {formatTokens(totalOf(shown))} tokens in context ({describe(shown)}) ·{' '}
            {shown.messages} messages, +{formatTokens(shown.added)} tokens · {shown.toolCalls} tool calls
            {shown.toolTokens > 0 ? `, ${formatTokens(shown.toolTokens)} tokens of tool output` : ''}
            {shownShare === undefined ? '' : ` · ${shownShare}`}
            {shown.seq !== undefined && previews.has(shown.seq) && (
              <span class="turn-preview" data-testid="chart-hover-preview">
                “{previews.get(shown.seq)}”
              </span>
            )}
          </span>
        ) : (
          <span>
            <strong>{shown.kind === 'before-compaction' ? 'Before a compaction' : 'After a compaction'}</strong> at
            message #{Math.floor(shown.x)} · {formatTokens(totalOf(shown))} tokens in context ({describe(shown)})
          </span>
        )}
      </div>
      <details class="chart-data">
        <summary>Data points</summary>
        <table data-testid="chart-data">
          <thead>
            <tr>
              <th scope="col">Point</th>
              <th scope="col">Message #</th>
              {CATEGORIES.map((category) => (
                <th key={category} scope="col">
                  {LABELS[category]}
                </th>
              ))}
              <th scope="col">Total</th>
              <th scope="col">Tool calls</th>
              {withShare && <th scope="col">Cached share</th>}
              <th scope="col">Open</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.x} data-x={point.x} data-kind={point.kind} data-index={point.index}>
                <td>
                  {point.kind === 'turn'
                    ? `Turn ${point.turn + 1}`
                    : point.kind === 'before-compaction'
                      ? 'Before compaction'
                      : 'After compaction'}
                </td>
                <td>{Math.floor(point.x)}</td>
                {CATEGORIES.map((category) => (
                  <td key={category} data-category={category}>
                    {point.tokens[category]}
                  </td>
                ))}
                <td data-total>{totalOf(point)}</td>
                <td>{point.toolCalls}</td>
                {withShare && <td data-cached-share>{cachedShareText(point) ?? ''}</td>}
                <td>
                  <button type="button" class="link" onClick={() => onJump(point.index)}>
                    Go to message {point.index + 1}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {timeline.marks.length > 0 && (
          <ul class="marks-list" data-testid="chart-marks">
            {timeline.marks.map((mark, i) => (
              <li key={i} data-kind={mark.kind}>
                {mark.kind === 'compaction'
                  ? `Compaction (${mark.strategy ?? ''}) at message #${Math.floor(mark.x)}: ${formatCount(mark.tokensBefore ?? 0)} → ${formatCount(mark.tokensAfter ?? 0)} tokens, ${formatCount(mark.removedMessages ?? 0)} messages removed`
                  : mark.kind === 'summary'
                    ? `Summary of ${formatCount(mark.removedMessages ?? 0)} messages at message #${mark.x}`
                    : `Cut of ${formatCount(mark.removedMessages ?? 0)} messages after message #${Math.floor(mark.x)}`}
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  );
}
