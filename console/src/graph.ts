/**
 * A workflow's graph, read-only: blocks in columns by their distance from the start, containers
 * (loops, parallels) as boxes around their children, edges drawn over them. `ran` marks the blocks
 * a run executed. The connections are also listed in words, for screen readers and keyboards.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from './html';
import type { Block, Graph } from './types';

/** Columns of one scope (the top level or one container's children), by longest path. */
function columnsOf(graph: Graph, scope: Block[]): Block[][] {
  const ids = new Set(scope.map((block) => block.id));
  const inScope = graph.edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target));
  const column = new Map(scope.map((block) => [block.id, 0]));
  // Longest path by relaxation; a cycle (never saved, but be safe) stops after |scope| rounds.
  for (let round = 0; round < scope.length; round += 1) {
    let changed = false;
    for (const edge of inScope) {
      const next = (column.get(edge.source) ?? 0) + 1;
      if (next > (column.get(edge.target) ?? 0) && next <= scope.length) {
        column.set(edge.target, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const columns: Block[][] = [];
  for (const block of scope) {
    const index = column.get(block.id) ?? 0;
    columns[index] = [...(columns[index] ?? []), block];
  }
  return columns.filter(Boolean);
}

interface Line {
  id: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  taken: boolean;
}

export function GraphView({ graph, ran, label }: { graph: Graph; ran?: Set<string>; label: string }) {
  const blocks = Object.values(graph.blocks);
  const frame = useRef<HTMLDivElement>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [size, setSize] = useState({ width: 0, height: 0 });

  useLayoutEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => {
      const origin = element.getBoundingClientRect();
      const boxOf = (id: string) =>
        element.querySelector(`[data-block="${CSS.escape(id)}"]`)?.getBoundingClientRect();
      const next: Line[] = [];
      for (const edge of graph.edges) {
        const from = boxOf(edge.source);
        const to = boxOf(edge.target);
        if (!from || !to) continue;
        const intoChild = graph.blocks[edge.target]?.parentId === edge.source;
        next.push({
          id: edge.id,
          x1: (intoChild ? from.left + 8 : from.right) - origin.left,
          y1: (intoChild ? from.top + 18 : from.top + from.height / 2) - origin.top,
          x2: to.left - origin.left,
          y2: to.top + Math.min(to.height / 2, 24) - origin.top,
          taken: Boolean(ran?.has(edge.source) && ran.has(edge.target)),
        });
      }
      setLines(next);
      setSize({ width: element.scrollWidth, height: element.scrollHeight });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [graph, ran]);

  const renderScope = (parentId: string | null): unknown => {
    const scope = blocks.filter((block) => (block.parentId ?? null) === parentId);
    return html`<div class="graph-scope">
      ${columnsOf(graph, scope).map(
        (column) => html`<div class="graph-column">${column.map((block) => renderBlock(block))}</div>`,
      )}
    </div>`;
  };

  const renderBlock = (block: Block) => {
    const isContainer = block.type === 'loop' || block.type === 'parallel';
    const didRun = ran?.has(block.id);
    const classes = [
      'graph-block',
      isContainer ? 'container' : '',
      didRun ? 'ran' : '',
      ran && !didRun ? 'not-ran' : '',
      block.enabled === false ? 'disabled' : '',
    ];
    return html`<div class=${classes.join(' ')} data-block=${block.id} role="listitem">
      <div class="graph-block-title">
        <span class="graph-block-type">${block.type}</span>
        <strong>${block.name}</strong>
        ${ran && html`<span class="graph-ran">${didRun ? '✓ ran' : '– did not run'}</span>`}
        ${block.enabled === false && html`<span class="graph-ran">(disabled)</span>`}
      </div>
      ${isContainer && renderScope(block.id)}
    </div>`;
  };

  const nameOf = (id: string) => graph.blocks[id]?.name ?? id;
  return html`<figure class="graph">
    <div class="graph-frame" ref=${frame} role="list" aria-label=${label}>
      <svg class="graph-edges" aria-hidden="true" width=${size.width} height=${size.height}>
        <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" /></marker></defs>
        ${lines.map(
          (line) =>
            html`<path class=${line.taken ? 'taken' : ''} marker-end="url(#arrow)" d=${`M ${line.x1} ${line.y1} C ${line.x1 + 30} ${line.y1}, ${line.x2 - 30} ${line.y2}, ${line.x2} ${line.y2}`} />`,
        )}
      </svg>
      ${renderScope(null)}
    </div>
    <figcaption>
      <details><summary>Connections (${graph.edges.length})</summary>
        <ul>${graph.edges.map(
          (edge) =>
            html`<li>${nameOf(edge.source)} → ${nameOf(edge.target)}${edge.sourceHandle && edge.sourceHandle !== 'source' ? ` (${edge.sourceHandle})` : ''}</li>`,
        )}</ul>
      </details>
    </figcaption>
  </figure>`;
}
