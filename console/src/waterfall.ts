/**
 * A run's trace as a waterfall: one row per span, nested spans indented under their loop, parallel
 * or child workflow, each with a bar on the run's time axis. It is an ARIA `tree` of `treeitem`s
 * (name first, then status and duration; level, position and set size given, so a reader knows
 * where it is) with the keyboard of a tree: arrows, Home, End, Enter. Only the rows in view (and a
 * few either side) are in the page, all of the same height, so a trace of thousands of spans opens
 * and scrolls as fast as a short one.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatDuration, statusIcon, statusName } from './format';
import { html } from './html';
import type { Span } from './types';

/** Must match `.span-row`'s height in style.css. */
export const rowHeightInPx = 26;
/** Rows drawn beyond each edge of the view, so a scroll shows no blank before the next frame. */
const overscanRows = 15;

export interface Row {
  span: Span;
  depth: number;
  parent: number;
  hasChildren: boolean;
  /** 1-based position among its siblings, and their count (aria-posinset, aria-setsize). */
  position: number;
  siblings: number;
}

export function flatten(spans: Span[]): Row[] {
  const rows: Row[] = [];
  const walk = (list: Span[], depth: number, parent: number) => {
    list.forEach((span, at) => {
      const index = rows.length;
      const hasChildren = (span.children?.length ?? 0) > 0;
      rows.push({ span, depth, parent, hasChildren, position: at + 1, siblings: list.length });
      if (hasChildren) walk(span.children as Span[], depth + 1, index);
    });
  };
  walk(spans, 1, -1);
  return rows;
}

/** The span that failed the run: the deepest failing span, the first of them in time order. */
export function failingRow(rows: Row[]): number {
  let found = -1;
  for (let index = 0; index < rows.length; index += 1) {
    if (rows[index].span.status !== 'error') continue;
    if (found === -1 || rows[index].depth > rows[found].depth) found = index;
  }
  return found;
}

export function Waterfall({ spans, onSelect }: { spans: Span[]; onSelect(span: Span | undefined): void }) {
  const rows = useMemo(() => flatten(spans), [spans]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const [selected, setSelected] = useState(() => Math.max(failingRow(rows), 0));
  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(512);
  const tree = useRef<HTMLDivElement>(null);
  /** Whether the selection should take the focus once drawn (keyboard and clicks; not the opening). */
  const focusing = useRef(false);

  const bounds = useMemo(() => {
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const { span } of rows) {
      start = Math.min(start, Date.parse(span.startTime));
      end = Math.max(end, Date.parse(span.endTime));
    }
    return { start, total: Math.max(end - start, 1) };
  }, [rows]);

  /** Rows whose ancestors are all expanded. */
  const visible = useMemo(() => {
    const shown: number[] = [];
    const hidden = new Set<number>();
    rows.forEach((row, index) => {
      if (row.parent !== -1 && (hidden.has(row.parent) || collapsed.has(row.parent))) hidden.add(index);
      else shown.push(index);
    });
    return shown;
  }, [rows, collapsed]);

  useEffect(() => onSelect(rows[selected]?.span), [rows, selected, onSelect]);

  /** Scrolls the view so that the row at `at` (of `visible`) shows: centred, or just inside an edge. */
  const reveal = (at: number, centre: boolean) => {
    const element = tree.current;
    if (!element || at < 0) return;
    const top = at * rowHeightInPx;
    const height = element.clientHeight;
    let next = element.scrollTop;
    if (centre) next = top - height / 2 + rowHeightInPx / 2;
    else if (top < next) next = top;
    else if (top + rowHeightInPx > next + height) next = top + rowHeightInPx - height;
    element.scrollTop = Math.max(0, next);
    setScrollTop(element.scrollTop);
  };

  // The failing span (selected first) is scrolled into view when the trace opens.
  useLayoutEffect(() => {
    const element = tree.current;
    if (element) setViewHeight(element.clientHeight);
    reveal(visible.indexOf(selected), true);
  }, [rows]);

  // The selected row takes the focus once it is drawn, when the keyboard or a click moved it.
  useEffect(() => {
    if (!focusing.current) return;
    focusing.current = false;
    tree.current?.querySelector<HTMLElement>(`[data-row="${selected}"]`)?.focus();
  }, [selected, scrollTop]);

  const select = (index: number) => {
    focusing.current = true;
    setSelected(index);
    reveal(visible.indexOf(index), false);
  };

  const toggle = (index: number, open?: boolean) =>
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (open ?? next.has(index)) next.delete(index);
      else next.add(index);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent) => {
    const at = visible.indexOf(selected);
    const row = rows[selected];
    const page = Math.max(1, Math.floor(viewHeight / rowHeightInPx) - 1);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        if (at < visible.length - 1) select(visible[at + 1]);
        break;
      case 'ArrowUp':
        if (at > 0) select(visible[at - 1]);
        break;
      case 'PageDown':
        select(visible[Math.min(visible.length - 1, at + page)]);
        break;
      case 'PageUp':
        select(visible[Math.max(0, at - page)]);
        break;
      case 'Home':
        select(visible[0]);
        break;
      case 'End':
        select(visible[visible.length - 1]);
        break;
      case 'ArrowRight':
        if (row?.hasChildren && collapsed.has(selected)) toggle(selected, true);
        else if (row?.hasChildren) select(selected + 1);
        break;
      case 'ArrowLeft':
        if (row?.hasChildren && !collapsed.has(selected)) toggle(selected, false);
        else if (row && row.parent !== -1) select(row.parent);
        break;
      case 'Enter':
      case ' ':
        if (row?.hasChildren) toggle(selected);
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };

  const first = Math.max(0, Math.floor(scrollTop / rowHeightInPx) - overscanRows);
  const last = Math.min(visible.length, Math.ceil((scrollTop + viewHeight) / rowHeightInPx) + overscanRows);
  // The selected row is always drawn, so that the tree keeps a focusable item wherever it scrolls.
  const drawn = visible.slice(first, last);
  const selectedAt = visible.indexOf(selected);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const rowOf = (index: number, at: number) => {
    const { span, depth, hasChildren, position, siblings } = rows[index];
    const offset = ((Date.parse(span.startTime) - bounds.start) / bounds.total) * 100;
    const width = Math.max((span.duration / bounds.total) * 100, 0.3);
    const status = statusName(span.status);
    const isSelected = index === selected;
    return html`<div key=${index} data-row=${index} role="treeitem" aria-level=${depth} aria-posinset=${position}
      aria-setsize=${siblings} aria-selected=${isSelected} aria-expanded=${hasChildren ? !collapsed.has(index) : undefined}
      aria-label=${`${span.name}, ${status}, ${formatDuration(span.duration)}`}
      tabindex=${isSelected ? 0 : -1} class=${`span-row status-${status.toLowerCase()}${isSelected ? ' selected' : ''}`}
      style=${{ top: `${at * rowHeightInPx}px` }} onClick=${() => select(index)}>
      <span class="span-name" style=${{ paddingLeft: `${(depth - 1) * 14}px` }}>
        ${
          hasChildren
            ? html`<span class="twisty" aria-hidden="true" onClick=${() => toggle(index)}>${collapsed.has(index) ? '▸' : '▾'}</span>`
            : html`<span class="twisty" aria-hidden="true"></span>`
        }
        <span aria-hidden="true" class="status-icon">${statusIcon(span.status)}</span> ${span.name}
      </span>
      <span class="span-track" aria-hidden="true"><span class="span-bar" style=${{ left: `${offset}%`, width: `${width}%` }}></span></span>
      <span class="span-duration" aria-hidden="true">${formatDuration(span.duration)}</span>
    </div>`;
  };

  return html`<div class="waterfall">
    <div class="waterfall-axis" aria-hidden="true">
      ${ticks.map((tick) => html`<span style=${{ left: `${tick * 100}%` }}>${formatDuration(tick * bounds.total)}</span>`)}
    </div>
    <div class="waterfall-tree" role="tree" aria-label="Trace" data-rows=${visible.length} ref=${tree}
      onKeyDown=${onKeyDown} onScroll=${(event: Event) => setScrollTop((event.target as HTMLElement).scrollTop)}>
      <div class="waterfall-rows" role="none" style=${{ height: `${visible.length * rowHeightInPx}px` }}>
        ${selectedAt !== -1 && (selectedAt < first || selectedAt >= last) && rowOf(selected, selectedAt)}
        ${drawn.map((index, offset) => rowOf(index, first + offset))}
      </div>
    </div>
  </div>`;
}
