/**
 * A run's trace as a waterfall: one row per span, nested spans indented under their loop, parallel
 * or child workflow, each with a bar on the run's time axis. It is an ARIA `tree` of `treeitem`s
 * (name first, then status and duration) with the keyboard of a tree: arrows, Home, End, Enter.
 * Rows are plain and their layout is skipped while off screen, so a trace of 1,000 spans opens at
 * once.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatDuration, statusIcon, statusName } from './format';
import { html } from './html';
import type { Span } from './types';

export interface Row {
  span: Span;
  depth: number;
  parent: number;
  hasChildren: boolean;
}

export function flatten(spans: Span[]): Row[] {
  const rows: Row[] = [];
  const walk = (list: Span[], depth: number, parent: number) => {
    for (const span of list) {
      const index = rows.length;
      rows.push({ span, depth, parent, hasChildren: (span.children?.length ?? 0) > 0 });
      if (span.children?.length) walk(span.children, depth + 1, index);
    }
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
  const tree = useRef<HTMLDivElement>(null);

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

  // The failing span (selected first) is scrolled into view when the trace opens.
  useEffect(() => {
    tree.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'center' });
  }, [rows]);

  const focusRow = (index: number) => {
    setSelected(index);
    requestAnimationFrame(() => {
      const element = tree.current?.querySelector<HTMLElement>(`[data-row="${index}"]`);
      element?.focus();
      element?.scrollIntoView({ block: 'nearest' });
    });
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
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        if (at < visible.length - 1) focusRow(visible[at + 1]);
        break;
      case 'ArrowUp':
        if (at > 0) focusRow(visible[at - 1]);
        break;
      case 'Home':
        focusRow(visible[0]);
        break;
      case 'End':
        focusRow(visible[visible.length - 1]);
        break;
      case 'ArrowRight':
        if (row?.hasChildren && collapsed.has(selected)) toggle(selected, true);
        else if (row?.hasChildren) focusRow(selected + 1);
        break;
      case 'ArrowLeft':
        if (row?.hasChildren && !collapsed.has(selected)) toggle(selected, false);
        else if (row && row.parent !== -1) focusRow(row.parent);
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

  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<div class="waterfall">
    <div class="waterfall-axis" aria-hidden="true">
      ${ticks.map((tick) => html`<span style=${{ left: `${tick * 100}%` }}>${formatDuration(tick * bounds.total)}</span>`)}
    </div>
    <div class="waterfall-tree" role="tree" aria-label="Trace" ref=${tree} onKeyDown=${onKeyDown}>
      ${visible.map((index) => {
        const { span, depth, hasChildren } = rows[index];
        const offset = ((Date.parse(span.startTime) - bounds.start) / bounds.total) * 100;
        const width = Math.max((span.duration / bounds.total) * 100, 0.3);
        const status = statusName(span.status);
        const isSelected = index === selected;
        return html`<div key=${index} data-row=${index} role="treeitem" aria-level=${depth}
          aria-selected=${isSelected} aria-expanded=${hasChildren ? !collapsed.has(index) : undefined}
          aria-label=${`${span.name}, ${status}, ${formatDuration(span.duration)}`}
          tabindex=${isSelected ? 0 : -1} class=${`span-row status-${status.toLowerCase()}${isSelected ? ' selected' : ''}`}
          onClick=${() => focusRow(index)}>
          <span class="span-name" style=${{ paddingLeft: `${(depth - 1) * 14}px` }}>
            ${hasChildren ? html`<span class="twisty" aria-hidden="true" onClick=${() => toggle(index)}>${collapsed.has(index) ? '▸' : '▾'}</span>` : html`<span class="twisty" aria-hidden="true"></span>`}
            <span aria-hidden="true" class="status-icon">${statusIcon(span.status)}</span> ${span.name}
          </span>
          <span class="span-track" aria-hidden="true"><span class="span-bar" style=${{ left: `${offset}%`, width: `${width}%` }}></span></span>
          <span class="span-duration" aria-hidden="true">${formatDuration(span.duration)}</span>
        </div>`;
      })}
    </div>
  </div>`;
}
