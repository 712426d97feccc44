/**
 * Validation and normalization of the workflow graph (DESIGN.md §4). Every problem is collected so
 * that one answer tells the author everything that is wrong, each with the path of the offending
 * member.
 */
import { type ErrorDetail, ValidationError } from '../errors';
import { findReferenceCandidates, isReferenceRoot, normalizeName } from './references';
import type { Block, BlockType, Edge, InputFieldType, WorkflowGraph } from './types';

export { normalizeName };

export const blockTypes: readonly BlockType[] = [
  'start',
  'function',
  'condition',
  'router',
  'agent',
  'api',
  'file',
  'response',
  'wait',
  'workflow',
  'variables',
  'loop',
  'parallel',
];

export const containerTypes: readonly string[] = ['loop', 'parallel'];

export const inputFieldTypes: readonly InputFieldType[] = [
  'string',
  'number',
  'boolean',
  'object',
  'array',
  'files',
];

/** `file[]` is the spelling some editors save for `files`. */
export function normalizeInputFieldType(type: unknown): InputFieldType | undefined {
  if (type === undefined || type === null || type === '') return 'string';
  if (type === 'file[]') return 'files';
  return inputFieldTypes.find((known) => known === type);
}

export function isContainer(block: Pick<Block, 'type'> | undefined): boolean {
  return block !== undefined && containerTypes.includes(block.type);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Path of a config member, e.g. `conditions[0].expression`. */
function memberPath(base: string, key: string | number): string {
  return typeof key === 'number' ? `${base}[${key}]` : `${base}.${key}`;
}

function collectStrings(value: unknown, path: string, found: Array<{ path: string; text: string }>): void {
  if (typeof value === 'string') found.push({ path, text: value });
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) collectStrings(item, memberPath(path, index), found);
  } else if (isRecord(value)) {
    for (const [key, member] of Object.entries(value)) collectStrings(member, memberPath(path, key), found);
  }
}

/**
 * Returns the graph normalized (`enabled` true and `parentId` null by default, `config` an object,
 * `loops` and `parallels` derived from the container blocks) or throws one `ValidationError` listing
 * every problem.
 */
export function validateGraph(graph: WorkflowGraph): WorkflowGraph {
  const details: ErrorDetail[] = [];
  const problem = (path: string, message: string) => details.push({ path, message });

  if (!isRecord(graph))
    throw new ValidationError('Invalid workflow graph', [{ path: '', message: 'Must be an object' }]);
  const rawBlocks: unknown = graph.blocks;
  const rawEdges: unknown = graph.edges ?? [];
  if (!isRecord(rawBlocks)) problem('blocks', 'Must be an object keyed by block id');
  if (!Array.isArray(rawEdges)) problem('edges', 'Must be an array');

  const blocks: Record<string, Block> = {};
  for (const [key, raw] of Object.entries(isRecord(rawBlocks) ? rawBlocks : {})) {
    const path = `blocks.${key}`;
    if (!isRecord(raw)) {
      problem(path, 'Must be an object');
      continue;
    }
    if (raw.id !== key) problem(`${path}.id`, `Block id "${String(raw.id)}" does not match its key "${key}"`);
    if (typeof raw.type !== 'string' || !blockTypes.includes(raw.type as BlockType)) {
      problem(
        `${path}.type`,
        `Unknown block type "${String(raw.type)}"; known types: ${blockTypes.join(', ')}`,
      );
    }
    if (typeof raw.name !== 'string' || normalizeName(raw.name) === '')
      problem(`${path}.name`, 'Block name is required');
    if (raw.config !== undefined && !isRecord(raw.config)) problem(`${path}.config`, 'Must be an object');
    if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean')
      problem(`${path}.enabled`, 'Must be a boolean');
    const parentId = raw.parentId ?? null;
    if (parentId !== null && typeof parentId !== 'string')
      problem(`${path}.parentId`, 'Must be a block id or null');
    blocks[key] = {
      ...raw,
      id: key,
      type: String(raw.type),
      name: typeof raw.name === 'string' ? raw.name : '',
      parentId: typeof parentId === 'string' ? parentId : null,
      enabled: raw.enabled !== false,
      config: isRecord(raw.config) ? raw.config : {},
    };
  }
  const list = Object.values(blocks);

  const names = new Map<string, string>();
  for (const block of list) {
    const name = normalizeName(block.name);
    if (name === '') continue;
    const first = names.get(name);
    if (first !== undefined) {
      problem(
        `blocks.${block.id}.name`,
        `Block name "${block.name}" is already used by block "${first}" (names are compared lowercased, without spaces)`,
      );
    } else names.set(name, block.id);
  }

  const starts = list.filter((block) => block.type === 'start');
  if (starts.length === 0) problem('blocks', 'The workflow has no start block');
  for (const extra of starts.slice(1))
    problem(`blocks.${extra.id}.type`, 'The workflow has more than one start block');
  for (const block of list) {
    if (block.type !== 'start' && normalizeName(block.name) === 'start') {
      problem(
        `blocks.${block.id}.name`,
        'Only the start block may be called "start": <start.x> always means the start block',
      );
    }
  }

  for (const block of list) {
    if (!block.parentId) continue;
    const path = `blocks.${block.id}.parentId`;
    const parent = blocks[block.parentId];
    if (!parent) problem(path, `Parent block "${block.parentId}" does not exist`);
    else if (!isContainer(parent))
      problem(path, `Parent block "${parent.name}" is a ${parent.type} block, not a loop or parallel`);
    else if (block.type === 'start') problem(path, 'The start block cannot be inside a loop or parallel');
    else if (containsItself(block.id, blocks)) problem(path, 'Loops and parallels are nested in a circle');
  }

  const inputFormat = starts[0]?.config.inputFormat;
  if (starts[0] && inputFormat !== undefined)
    validateInputFormat(inputFormat, `blocks.${starts[0].id}.config.inputFormat`, problem);

  const edges: Edge[] = [];
  (Array.isArray(rawEdges) ? rawEdges : []).forEach((raw: unknown, index) => {
    const path = `edges[${index}]`;
    if (!isRecord(raw)) {
      problem(path, 'Must be an object');
      return;
    }
    const edge = raw as unknown as Edge;
    let valid = true;
    for (const end of ['source', 'target'] as const) {
      if (typeof edge[end] !== 'string' || !blocks[edge[end]]) {
        problem(`${path}.${end}`, `Block "${String(edge[end])}" does not exist`);
        valid = false;
      }
    }
    if (edge.sourceHandle !== undefined && typeof edge.sourceHandle !== 'string') {
      problem(`${path}.sourceHandle`, 'Must be a string');
    }
    edges.push(edge);
    if (!valid) return;
    const source = blocks[edge.source];
    const target = blocks[edge.target];
    if (target.type === 'start') problem(`${path}.target`, 'The start block cannot have incoming edges');
    // Edges stay inside one container, except the container's own edge to the first blocks of its body.
    if (source.parentId !== target.parentId && target.parentId !== source.id) {
      problem(
        `${path}.target`,
        `Edge from "${source.name}" to "${target.name}" crosses the boundary of a loop or parallel`,
      );
    }
  });

  for (const cycle of cyclesOutsideLoops(blocks, edges)) {
    const names = cycle.blocks.map((id) => blocks[id].name);
    problem(`edges[${cycle.edgeIndex}].target`, `Cycle outside a loop: ${[...names, names[0]].join(' → ')}`);
  }

  const blockNames = new Set(names.keys());
  for (const block of list) {
    const strings: Array<{ path: string; text: string }> = [];
    collectStrings(block.config, `blocks.${block.id}.config`, strings);
    for (const { path, text } of strings) {
      for (const reference of findReferenceCandidates(text)) {
        if (reference.path.length === 0 || isReferenceRoot(reference.root, reference.path, blockNames))
          continue;
        problem(path, `Reference ${reference.raw} names no block of this workflow`);
      }
    }
  }

  if (details.length > 0) throw new ValidationError('Invalid workflow graph', details);

  return {
    ...graph,
    blocks,
    edges,
    loops: deriveContainers(list, 'loop'),
    parallels: deriveContainers(list, 'parallel'),
  };
}

function containsItself(id: string, blocks: Record<string, Block>): boolean {
  const seen = new Set<string>();
  let current: string | null | undefined = id;
  while (current) {
    if (seen.has(current)) return true;
    seen.add(current);
    current = blocks[current]?.parentId;
  }
  return false;
}

function validateInputFormat(
  value: unknown,
  path: string,
  problem: (path: string, message: string) => void,
): void {
  if (!Array.isArray(value)) {
    problem(path, 'Must be an array of input fields');
    return;
  }
  const seen = new Set<string>();
  value.forEach((field: unknown, index) => {
    const fieldPath = `${path}[${index}]`;
    if (!isRecord(field)) {
      problem(fieldPath, 'Must be an object');
      return;
    }
    if (typeof field.name !== 'string' || field.name.trim() === '')
      problem(`${fieldPath}.name`, 'Input field name is required');
    else if (seen.has(field.name))
      problem(`${fieldPath}.name`, `Input field "${field.name}" is declared twice`);
    else seen.add(field.name);
    if (normalizeInputFieldType(field.type) === undefined) {
      problem(
        `${fieldPath}.type`,
        `Unknown input type "${String(field.type)}"; known types: ${inputFieldTypes.join(', ')}`,
      );
    }
  });
}

function deriveContainers(list: Block[], type: 'loop' | 'parallel'): Record<string, unknown> {
  const containers: Record<string, unknown> = {};
  for (const block of list) {
    if (block.type !== type) continue;
    const nodes = list.filter((child) => child.parentId === block.id).map((child) => child.id);
    containers[block.id] = { ...block.config, id: block.id, nodes };
  }
  return containers;
}

/**
 * Strongly connected components (Tarjan) of the edge graph. A cycle is allowed only when all of its
 * blocks are the body of the same loop; each other one is reported once, at its first edge.
 */
function cyclesOutsideLoops(
  blocks: Record<string, Block>,
  edges: Edge[],
): Array<{ blocks: string[]; edgeIndex: number }> {
  const outgoing = new Map<string, string[]>();
  edges.forEach((edge) => {
    if (!blocks[edge.source] || !blocks[edge.target]) return;
    outgoing.set(edge.source, [...(outgoing.get(edge.source) ?? []), edge.target]);
  });

  let counter = 0;
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const visit = (id: string) => {
    index.set(id, counter);
    lowLink.set(id, counter);
    counter++;
    stack.push(id);
    onStack.add(id);
    for (const next of outgoing.get(id) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(id, Math.min(lowLink.get(id)!, lowLink.get(next)!));
      } else if (onStack.has(next)) lowLink.set(id, Math.min(lowLink.get(id)!, index.get(next)!));
    }
    if (lowLink.get(id) === index.get(id)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== id);
      components.push(component.reverse());
    }
  };
  for (const id of Object.keys(blocks)) if (!index.has(id)) visit(id);

  const cycles: Array<{ blocks: string[]; edgeIndex: number }> = [];
  for (const component of components) {
    const members = new Set(component);
    const edgeIndex = edges.findIndex((edge) => members.has(edge.source) && members.has(edge.target));
    if (edgeIndex === -1) continue;
    const parentId = blocks[component[0]].parentId;
    const insideOneLoop =
      parentId !== null &&
      parentId !== undefined &&
      blocks[parentId]?.type === 'loop' &&
      component.every((id) => blocks[id].parentId === parentId);
    if (!insideOneLoop) cycles.push({ blocks: component, edgeIndex });
  }
  return cycles;
}
