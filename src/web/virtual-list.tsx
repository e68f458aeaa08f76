/**
 * A virtualized list: only the rows in view (and a few around them) exist in the page, placed by
 * their measured heights (`Heights`), so a 100k-row list opens and scrolls like a short one. It
 * opens with a chosen row at the top (or at its end), and a row scrolled to stays at the top while
 * the rows around it are measured — until the person scrolls. Otherwise it keeps the row in view
 * still while rows above it are measured, and stays at the bottom while new rows arrive when it
 * was there.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Heights } from './heights.js';

/** Rows rendered beyond each edge of the view. */
const OVERSCAN = 6;

/** What a parent may ask of the list. */
export interface VirtualListHandle {
  /** Scrolls row `index` to the top of the view. */
  scrollToIndex(index: number): void;
}

/** Props of `VirtualList`. */
export interface VirtualListProps {
  readonly count: number;
  readonly heights: Heights;
  /** Changes whenever rows' content changed (messages arrived, a row expanded). */
  readonly version: number;
  readonly renderRow: (index: number) => ComponentChildren;
  /** Told the rows in view after each scroll or render. */
  readonly onVisible: (first: number, last: number) => void;
  readonly handle: { current: VirtualListHandle | undefined };
  /** Row to show first, at the top; without one the list opens at its end. */
  readonly initialIndex?: number;
  readonly label: string;
}

/** The list. */
export function VirtualList(props: VirtualListProps) {
  const { count, heights } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [, setMeasured] = useState(0);
  const atBottom = useRef(props.initialIndex === undefined);
  /**
   * The row held at the top: the rows' heights are estimates until they are rendered and
   * measured, so its offset moves as they are; it is scrolled to again after each measure.
   * Dropped when the person scrolls (wheel, touch, keys, the scrollbar) or rows are added.
   */
  const pinned = useRef<number | undefined>(props.initialIndex);
  const pinnedCount = useRef(count);
  if (pinnedCount.current !== count) {
    pinnedCount.current = count;
    pinned.current = undefined;
  }
  const unpin = (): void => {
    pinned.current = undefined;
  };

  props.handle.current = {
    scrollToIndex(index: number) {
      const element = scroller.current;
      if (element === null) return;
      atBottom.current = false;
      pinned.current = Math.max(0, Math.min(index, count - 1));
      element.scrollTop = heights.offsetOf(pinned.current);
      setScrollTop(element.scrollTop);
    },
  };

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return undefined;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, heights.indexAt(scrollTop) - OVERSCAN);
  const last = Math.min(count - 1, heights.indexAt(scrollTop + viewport) + OVERSCAN);

  // Measure what was rendered; keep the first row in view where it is while rows above it change.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const anchor = heights.indexAt(element.scrollTop);
    let changed = false;
    let shift = 0;
    for (const row of element.querySelectorAll<HTMLElement>('[data-index]')) {
      const index = Number(row.dataset.index);
      const delta = heights.set(index, row.offsetHeight);
      if (delta !== 0) {
        changed = true;
        if (index < anchor) shift += delta;
      }
    }
    if (pinned.current !== undefined) element.scrollTop = heights.offsetOf(pinned.current);
    else if (atBottom.current) element.scrollTop = element.scrollHeight;
    else if (shift !== 0) element.scrollTop += shift;
    if (changed) setMeasured((n) => n + 1);
    else props.onVisible(heights.indexAt(element.scrollTop), heights.indexAt(element.scrollTop + element.clientHeight));
  });

  const onScroll = (): void => {
    const element = scroller.current;
    if (element === null) return;
    atBottom.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
    setScrollTop(element.scrollTop);
  };

  const rows: ComponentChildren[] = [];
  for (let index = first; index <= last; index++)
    rows.push(
      <div
        key={index}
        class="vrow"
        data-index={index}
        role="article"
        aria-posinset={index + 1}
        aria-setsize={count}
        style={{ transform: `translateY(${heights.offsetOf(index)}px)` }}
      >
        {props.renderRow(index)}
      </div>,
    );
  return (
    <div
      ref={scroller}
      class="scroller"
      tabIndex={0}
      role="feed"
      aria-label={props.label}
      aria-busy={false}
      onScroll={onScroll}
      onWheel={unpin}
      onTouchStart={unpin}
      onKeyDown={unpin}
      onPointerDown={unpin}
      data-testid="messages"
    >
      <div class="spacer-rows" style={{ height: `${heights.total()}px` }}>
        {rows}
      </div>
    </div>
  );
}
