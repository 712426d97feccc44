/**
 * Reading a workflow file: Sim's export (`{version, exportedAt, state}`), its `{data: …}` wrapper,
 * the older form with `blocks` and `edges` at the root, or our own graph (blocks with `config`
 * where Sim's have `subBlocks`), each as an object or as JSON text.
 */
import { type ErrorDetail, ValidationError } from '../errors';
import type { WorkflowGraph } from '../engine/types';
import { isRecord } from './sim-values';
import type { SimWorkflowState, WorkflowFile } from './types';

function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch (error) {
    throw new ValidationError('The workflow is not valid JSON', [
      { path: 'workflow', message: (error as Error).message },
    ]);
  }
}

/** `{data: {...}}` as Sim's API answers it, unwrapped when what is inside looks like a workflow. */
function unwrapped(document: Record<string, unknown>): Record<string, unknown> {
  const inner = document.data;
  if (
    isRecord(inner) &&
    (inner.state !== undefined ||
      inner.version !== undefined ||
      inner.workflow !== undefined ||
      inner.blocks !== undefined)
  ) {
    return inner;
  }
  return document;
}

function optionalText(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return undefined;
}

/** Whether the blocks are ours (a `config` each) rather than Sim's (`subBlocks`). */
function isOurGraph(blocks: Record<string, unknown>): boolean {
  const list = Object.values(blocks).filter(isRecord);
  return list.length > 0 && list.every((block) => isRecord(block.config) && block.subBlocks === undefined);
}

function checkShape(state: Record<string, unknown>, ours: boolean): void {
  const details: ErrorDetail[] = [];
  const problem = (path: string, message: string) => details.push({ path, message });
  if (!isRecord(state.blocks)) problem('workflow.blocks', 'Missing or not an object keyed by block id');
  if (!Array.isArray(state.edges)) problem('workflow.edges', 'Missing or not an array');
  for (const [key, block] of Object.entries(isRecord(state.blocks) ? state.blocks : {})) {
    const path = `workflow.blocks.${key}`;
    if (!isRecord(block)) {
      problem(path, 'Must be an object');
      continue;
    }
    if (typeof block.type !== 'string' || block.type === '') problem(`${path}.type`, 'Missing block type');
    if (!ours && block.subBlocks !== undefined && !isRecord(block.subBlocks)) {
      problem(`${path}.subBlocks`, 'Must be an object keyed by sub-block id');
    }
  }
  (Array.isArray(state.edges) ? state.edges : []).forEach((edge, index) => {
    const path = `workflow.edges[${index}]`;
    if (!isRecord(edge)) problem(path, 'Must be an object');
    else if (typeof edge.source !== 'string' || typeof edge.target !== 'string') {
      problem(path, 'An edge needs a source and a target block id');
    } else if (
      edge.sourceHandle !== undefined &&
      edge.sourceHandle !== null &&
      typeof edge.sourceHandle !== 'string'
    ) {
      problem(`${path}.sourceHandle`, 'Must be text');
    }
  });
  if (details.length > 0) throw new ValidationError('The workflow file is not a workflow', details);
}

/**
 * Accepts an object or a JSON string: Sim's export `{version, exportedAt, state:{blocks,edges,loops,parallels,variables?,metadata?}}`,
 * the `{data: …}` wrapper, the older form with blocks/edges at the root, or our own graph.
 * Throws ValidationError (400) naming what is wrong.
 */
export function readWorkflowFile(input: unknown): WorkflowFile {
  const document = parsed(input);
  if (!isRecord(document)) {
    throw new ValidationError('The workflow must be a JSON object', [
      { path: 'workflow', message: 'Expected a Sim export or a workflow graph' },
    ]);
  }
  const root = unwrapped(document);
  const state = isRecord(root.state) ? root.state : root;
  const blocks = isRecord(state.blocks) ? state.blocks : {};
  const ours = isOurGraph(blocks);
  checkShape(state, ours);
  const metadata = isRecord(state.metadata) ? state.metadata : {};
  const workflow = isRecord(root.workflow) ? root.workflow : {};
  const name = optionalText(metadata.name, workflow.name, root.name);
  const description = optionalText(metadata.description, workflow.description, root.description);
  const described = { ...(name ? { name } : {}), ...(description ? { description } : {}) };
  if (ours) {
    const graph: WorkflowGraph = {
      blocks: blocks as WorkflowGraph['blocks'],
      edges: state.edges as WorkflowGraph['edges'],
      loops: {},
      parallels: {},
    };
    return { kind: 'graph', graph, ...described };
  }
  const simState: SimWorkflowState = {
    blocks: blocks as SimWorkflowState['blocks'],
    edges: state.edges as SimWorkflowState['edges'],
    loops: isRecord(state.loops) ? state.loops : {},
    parallels: isRecord(state.parallels) ? state.parallels : {},
    ...(isRecord(state.variables) ? { variables: state.variables as SimWorkflowState['variables'] } : {}),
    ...(isRecord(state.metadata) ? { metadata: state.metadata } : {}),
  };
  const sourceId = optionalText(workflow.id, root.id);
  return { kind: 'sim', state: simState, ...described, ...(sourceId ? { sourceId } : {}) };
}
