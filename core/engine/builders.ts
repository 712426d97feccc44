/** Terse builders for workflow graphs, for the demo workflows and for tests. */
import type { Block, Edge, WorkflowGraph } from './types';

export function block(id: string, type: string, name: string, config: Record<string, unknown> = {}): Block {
  return { id, type, name, parentId: null, enabled: true, config };
}

/** Edge ids follow from their ends and handle, so a graph built twice is the same graph. */
export function edge(source: string, target: string, sourceHandle = 'source'): Edge {
  return { id: `${source}-${sourceHandle}-${target}`, source, target, sourceHandle };
}

export function graphOf(blocks: Block[], edges: Edge[] = []): WorkflowGraph {
  return { blocks: Object.fromEntries(blocks.map((b) => [b.id, b])), edges, loops: {}, parallels: {} };
}
