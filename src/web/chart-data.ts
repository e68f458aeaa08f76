/**
 * What the token chart draws, worked out from a timeline alone: the categories' labels, a point's
 * total, the session's peak, and whether the context window line is drawn. The chart and its
 * legend both read them, so the legend names exactly what the chart draws.
 * @module
 */
import { CATEGORIES, type Category, type Timeline, type TimelinePoint } from './types.js';

/** The categories' names, as the chart and its legend show them. */
export const LABELS: Readonly<Record<Category, string>> = {
  system: 'System',
  context: 'Context',
  dialog: 'Dialog',
  tool_output: 'Tool output',
};

/** The context window line is drawn when it is at most this many times the session's peak. */
export const WINDOW_SHOWN_WITHIN = 4;

/** Tokens in context at `point`, all categories. */
export function totalOf(point: TimelinePoint): number {
  return CATEGORIES.reduce((sum, category) => sum + point.tokens[category], 0);
}

/** The most tokens any point holds (at least 1). */
export function peakOf(points: readonly TimelinePoint[]): number {
  return Math.max(1, ...points.map(totalOf));
}

/** The context window the chart draws: none when unknown, or far above the session (it would flatten it). */
export function drawnWindow(timeline: Timeline): number | undefined {
  const window = timeline.contextWindow;
  return window !== undefined && window <= peakOf(timeline.points) * WINDOW_SHOWN_WITHIN ? window : undefined;
}

/** The categories with tokens at some point: the others draw nothing. */
export function drawnCategories(timeline: Timeline): Category[] {
  return CATEGORIES.filter((category) => timeline.points.some((point) => point.tokens[category] > 0));
}
