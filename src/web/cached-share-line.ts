/**
 * The token chart's cached-share line: for each turn with measured usage, the share of its calls'
 * input the provider's prompt cache served (0–100%, on a right axis of its own), and the words the
 * hover readout and the points table say about it. A downsampled point's usage is its bucket's, so
 * its share is the bucket's. Drawn only when some point has a share: the chart, its legend and its
 * table ask `drawsCachedShare`.
 * @module
 */
import type uPlot from 'uplot';
import { formatCount } from './format.js';
import type { Timeline, TimelinePoint } from './types.js';
import { cachedShareOf } from './usage-share.js';

/** The line's name, on its axis and in the legend. */
export const CACHED_SHARE_LABEL = 'Cached share of input';

/** The line's scale: percent, apart from the tokens' `y`. */
const SCALE = 'cached';

/** `point`'s cached share (0 to 1): none without usage or without input. */
export function pointShare(point: TimelinePoint): number | undefined {
  return point.usage === undefined ? undefined : cachedShareOf(point.usage);
}

/** Whether the chart draws the line: some point has a share. */
export function drawsCachedShare(timeline: Timeline): boolean {
  return timeline.points.some((point) => pointShare(point) !== undefined);
}

/** `cached 93% of 3,100 input tokens`; undefined for a point without a share. */
export function cachedShareText(point: TimelinePoint): string | undefined {
  const share = pointShare(point);
  if (share === undefined || point.usage === undefined) return undefined;
  return `cached ${Math.round(share * 100)}% of ${formatCount(point.usage.inputTokens)} input tokens`;
}

/** Colours of the line and its axis (read from the style sheet by the chart). */
export interface CachedShareColours {
  readonly line: string;
  readonly axis: string;
}

/** What uPlot needs to draw the line over `points`: its series, scale, axis (on the right) and values. */
export function cachedShareLayer(points: readonly TimelinePoint[], colours: CachedShareColours) {
  const series: uPlot.Series = {
    label: CACHED_SHARE_LABEL,
    scale: SCALE,
    stroke: colours.line,
    width: 2,
    // Compaction points and turns without usage have no share: the line goes on to the next turn that has one.
    spanGaps: true,
    points: { size: 5, stroke: colours.line, fill: colours.line },
  };
  const axis: uPlot.Axis = {
    scale: SCALE,
    side: 1,
    label: CACHED_SHARE_LABEL,
    stroke: colours.axis,
    // The tokens' grid is the chart's: a second one would cross it.
    grid: { show: false },
    size: 56,
    splits: () => [0, 25, 50, 75, 100],
    values: (_, ticks) => ticks.map((tick) => `${tick}%`),
  };
  const scale: uPlot.Scale = { range: [0, 100] };
  const values = points.map((point) => {
    const share = pointShare(point);
    return share === undefined ? null : share * 100;
  });
  return { series, axis, scale, scaleKey: SCALE, values };
}
