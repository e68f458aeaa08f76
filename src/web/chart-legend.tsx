/**
 * The token chart's legend: an entry for each thing the chart draws — the categories that hold
 * tokens, the context window line when drawn, the cached share line when some turn has measured
 * usage, and each kind of mark the timeline has — and none for what it does not. Swatches take
 * their colours from the same style variables as the canvas.
 * @module
 */
import { CACHED_SHARE_LABEL, drawsCachedShare } from './cached-share-line.js';
import { LABELS, drawnCategories, drawnWindow } from './chart-data.js';
import type { Timeline } from './types.js';

/** One legend entry: its swatch's class and its text. */
interface Entry {
  readonly swatch: string;
  readonly label: string;
}

/** The entries for `timeline`, in the order the chart's layers go (areas, lines, marks). */
function entries(timeline: Timeline): Entry[] {
  const kinds = new Set(timeline.marks.map((mark) => mark.kind));
  return [
    ...drawnCategories(timeline).map((category) => ({ swatch: `cat-${category}`, label: LABELS[category] })),
    ...(drawnWindow(timeline) === undefined ? [] : [{ swatch: 'window', label: 'Context window' }]),
    ...(drawsCachedShare(timeline) ? [{ swatch: 'cached-line', label: CACHED_SHARE_LABEL }] : []),
    ...(kinds.has('compaction') ? [{ swatch: 'compaction', label: 'Compaction (before → after)' }] : []),
    ...(kinds.has('summary') ? [{ swatch: 'summary', label: 'Summary' }] : []),
    ...(kinds.has('cut') ? [{ swatch: 'cut', label: 'Cut (messages removed)' }] : []),
    ...(timeline.toolHeavy.length > 0 ? [{ swatch: 'tool', label: 'Tool-heavy turn' }] : []),
  ];
}

/** The legend. */
export function ChartLegend({ timeline }: { readonly timeline: Timeline }) {
  return (
    <ul class="legend" aria-label="Legend">
      {entries(timeline).map((entry) => (
        <li key={entry.swatch}>
          <span class={`swatch ${entry.swatch}`} aria-hidden="true" />
          {entry.label}
        </li>
      ))}
    </ul>
  );
}
