/**
 * Validation and normalization of the workflow graph. Every problem is collected so
 * that one answer tells the author everything that is wrong, each with the path of the offending
 * member.
 */
import { type ErrorDetail, ValidationError } from '../errors';
import { countFrom, isLiteral, loopTypeOf, loopTypes, parallelTypeOf, parallelTypes } from './containers';
import { limitsOf } from './limits';
import { isReferenceRoot, normalizeName, referenceCandidatesOf } from './references';
import { responseHeaderNameProblem, responseHeaderValueProblem } from './response-headers';
import type { Block, BlockType, Edge, EngineLimits, InputFieldType, WorkflowGraph } from './types';

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

export interface ValidateGraphOptions {
  /** Literal loop iterations and parallel counts above these are rejected before a run (defaults: limits.ts). */
  limits?: Partial<EngineLimits>;
}

/**
 * Returns the graph normalized (`enabled` true and `parentId` null by default, `config` an object,
 * `loops` and `parallels` derived from the container blocks) or throws one `ValidationError` listing
 * every problem.
 */
const validatedGraphs = new WeakMap<WorkflowGraph, { limitsKey: string; graph: WorkflowGraph }>();

/**
 * `validateGraph`, once per graph object and limits. Runs start from deployed graphs, which are
 * immutable and kept by the deployment cache, so a warm process validates each only once instead
 * of on every run. Callers must not change a graph after passing it here.
 */
export function validatedGraph(graph: WorkflowGraph, options: ValidateGraphOptions = {}): WorkflowGraph {
  const limitsKey = JSON.stringify(options.limits ?? {});
  const known = validatedGraphs.get(graph);
  if (known?.limitsKey === limitsKey) return known.graph;
  const validated = validateGraph(graph, options);
  validatedGraphs.set(graph, { limitsKey, graph: validated });
  return validated;
}

export function validateGraph(graph: WorkflowGraph, options: ValidateGraphOptions = {}): WorkflowGraph {
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

  const limits = limitsOf(options.limits);
  for (const block of list) validateBlockConfig(block, limits, problem);

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

  for (const cycle of cyclesOf(blocks, edges)) {
    const names = cycle.blocks.map((id) => blocks[id].name);
    const path = [...names, names[0]].join(' → ');
    const parent = blocks[blocks[cycle.blocks[0]].parentId ?? ''];
    problem(
      `edges[${cycle.edgeIndex}].target`,
      parent?.type === 'loop' && cycle.blocks.every((id) => blocks[id].parentId === parent.id)
        ? `Cycle inside the body of loop "${parent.name}": ${path}; the loop repeats its body, so the body itself must not loop`
        : `Cycle outside a loop: ${path}`,
    );
  }

  const blockNames = new Set(names.keys());
  for (const block of list) {
    const strings: Array<{ path: string; text: string }> = [];
    collectStrings(block.config, `blocks.${block.id}.config`, strings);
    for (const { path, text } of strings) {
      for (const reference of referenceCandidatesOf(text)) {
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

/** What can be checked of a block's config before a run: values written out, not references. */
function validateBlockConfig(
  block: Block,
  limits: EngineLimits,
  problem: (path: string, message: string) => void,
): void {
  const { config } = block;
  const path = `blocks.${block.id}.config`;
  const countWithin = (key: string, cap: number, what: string) => {
    const value = config[key];
    if (value === undefined || !isLiteral(value)) return;
    const count = countFrom(value);
    if (count === undefined) problem(`${path}.${key}`, `${what} must be a whole number of at least 0`);
    else if (count > cap) problem(`${path}.${key}`, `${what} is ${count}, more than the limit of ${cap}`);
  };
  if (block.type === 'loop') {
    const type = loopTypeOf(config);
    if (type === undefined) {
      problem(
        `${path}.loopType`,
        `Unknown loop type ${JSON.stringify(config.loopType)}; known: ${loopTypes.join(', ')}`,
      );
    } else if (type === 'for') {
      countWithin('iterations', limits.maxLoopIterations, 'Loop iterations');
    } else if (type === 'while' || type === 'doWhile') {
      if (typeof config.condition !== 'string' || config.condition.trim() === '') {
        problem(`${path}.condition`, `A ${type} loop needs a condition`);
      }
    }
  } else if (block.type === 'parallel') {
    const type = parallelTypeOf(config);
    if (type === undefined) {
      problem(
        `${path}.parallelType`,
        `Unknown parallel type ${JSON.stringify(config.parallelType)}; known: ${parallelTypes.join(', ')}`,
      );
    } else if (type === 'count') {
      countWithin('count', limits.maxParallelBranches, 'Parallel count');
    }
  } else if (block.type === 'wait') {
    const value = config.durationMs;
    if (value !== undefined && isLiteral(value)) {
      const duration = typeof value === 'string' ? Number(value.trim()) : value;
      if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0 || value === '') {
        problem(`${path}.durationMs`, 'Wait durationMs must be a number of milliseconds of at least 0');
      }
    }
  } else if (block.type === 'workflow') {
    if (typeof config.workflowId !== 'string' || config.workflowId.trim() === '') {
      problem(`${path}.workflowId`, 'Workflow block needs a workflowId');
    }
  } else if (block.type === 'response') {
    validateResponseHeaders(config.headers, `${path}.headers`, problem);
  }
}

/**
 * The names written out and the values' text; a value that is a reference is checked when the run
 * makes it, and so is a whole `headers` that is one.
 */
function validateResponseHeaders(
  headers: unknown,
  path: string,
  problem: (path: string, message: string) => void,
): void {
  if (headers === undefined || headers === null || typeof headers === 'string') return;
  if (!isRecord(headers)) {
    problem(path, 'Response headers must be an object of header names to values');
    return;
  }
  for (const [name, value] of Object.entries(headers)) {
    const nameProblem = responseHeaderNameProblem(name);
    if (nameProblem) problem(memberPath(path, name), nameProblem);
    else if (typeof value === 'string') {
      const valueProblem = responseHeaderValueProblem(name, value);
      if (valueProblem) problem(memberPath(path, name), valueProblem);
    }
  }
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
 * Strongly connected components (Tarjan) of the edge graph; each cycle is reported once, at its first
 * edge. None is allowed: a loop repeats its body by itself, one pass of the body per iteration.
 */
function cyclesOf(
  blocks: Record<string, Block>,
  edges: Edge[],
): Array<{ blocks: string[]; edgeIndex: number }> {
  const outgoing = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  for (const id of Object.keys(blocks)) {
    outgoing.set(id, []);
    incoming.set(id, 0);
  }
  for (const edge of edges) {
    if (!blocks[edge.source] || !blocks[edge.target]) continue;
    outgoing.get(edge.source)!.push(edge.target);
    incoming.set(edge.target, incoming.get(edge.target)! + 1);
  }
  // Most graphs have no cycle: a topological sort (no recursion, linear) settles that cheaply.
  const free = [...incoming.keys()].filter((id) => incoming.get(id) === 0);
  let sorted = 0;
  while (free.length > 0) {
    sorted += 1;
    for (const next of outgoing.get(free.pop()!)!) {
      const left = incoming.get(next)! - 1;
      incoming.set(next, left);
      if (left === 0) free.push(next);
    }
  }
  if (sorted === incoming.size) return [];

  let counter = 0;
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const componentOf = new Map<string, number>();
  const components: string[][] = [];

  const visit = (id: string) => {
    index.set(id, counter);
    lowLink.set(id, counter);
    counter++;
    stack.push(id);
    onStack.add(id);
    for (const next of outgoing.get(id)!) {
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
        componentOf.set(member, components.length);
      } while (member !== id);
      components.push(component.reverse());
    }
  };
  for (const id of Object.keys(blocks)) if (!index.has(id)) visit(id);

  // A component is a cycle when an edge stays inside it; the first such edge is where it is reported.
  const firstEdge = new Map<number, number>();
  edges.forEach((edge, edgeIndex) => {
    const component = componentOf.get(edge.source);
    if (component === undefined || component !== componentOf.get(edge.target)) return;
    if (!firstEdge.has(component)) firstEdge.set(component, edgeIndex);
  });
  return [...firstEdge.entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([component, edgeIndex]) => ({ blocks: components[component], edgeIndex }));
}
