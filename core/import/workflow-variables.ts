/**
 * Sim's workflow variables (`state.variables`) have starting values; here variables are set by a
 * `variables` block. So a workflow with starting values gets one, run right after the start block.
 */
import type { Block, Edge, WorkflowGraph } from '../engine/types';
import { typedVariableValue } from './blocks/flow';
import { simReferenceName } from './references';
import { isRecord } from './sim-values';
import type { SimWorkflowState } from './types';

export function simVariablesOf(
  state: SimWorkflowState,
): Array<{ name: string; type: string; value: unknown }> {
  const raw: unknown = state.variables;
  const list = Array.isArray(raw) ? raw : isRecord(raw) ? Object.values(raw) : [];
  return list
    .filter(isRecord)
    .filter((variable) => typeof variable.name === 'string' && variable.name.trim() !== '')
    .map((variable) => ({
      name: String(variable.name),
      type: typeof variable.type === 'string' ? variable.type : 'plain',
      value: variable.value,
    }));
}

function uniqueName(graph: WorkflowGraph, wanted: string): string {
  const taken = new Set(Object.values(graph.blocks).map((block) => simReferenceName(block.name)));
  let name = wanted;
  for (let index = 2; taken.has(simReferenceName(name)); index += 1) name = `${wanted} ${index}`;
  return name;
}

/** Adds the block that sets the starting values, between the start block and what followed it. */
export function withStartingVariables(
  graph: WorkflowGraph,
  state: SimWorkflowState,
  startId: string,
): WorkflowGraph {
  const assignments = simVariablesOf(state)
    .filter(({ value }) => value !== undefined && value !== null && value !== '')
    .map(({ name, type, value }) => ({
      name: simReferenceName(name),
      value: typedVariableValue(value, type),
    }));
  if (assignments.length === 0) return graph;
  let id = `${startId}-variables`;
  while (graph.blocks[id]) id = `${id}-1`;
  const block: Block = {
    id,
    type: 'variables',
    name: uniqueName(graph, 'Workflow variables'),
    parentId: null,
    enabled: true,
    config: { assignments },
  };
  const edges: Edge[] = graph.edges.map((edge) => (edge.source === startId ? { ...edge, source: id } : edge));
  edges.unshift({ id: `${id}-edge`, source: startId, target: id, sourceHandle: 'source' });
  return { ...graph, blocks: { ...graph.blocks, [id]: block }, edges };
}
