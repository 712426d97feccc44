/**
 * Lookups derived from a validated graph, built once per step and graph (never stored): the graph
 * split into scopes (the top level, and the body of each loop or parallel), each with its own edges.
 *
 * - A scope's blocks are those whose `parentId` is the container (null for the top level); its
 *   edges are those between two of them. An edge out of a container to a sibling belongs to the
 *   outer scope like any other edge.
 * - An edge from a container to one of its children (a `loop-start-source` style handle) only marks
 *   where the body starts; it is in no scope.
 * - Entry blocks: at the top level the start block; in a body every child with no incoming edge from
 *   a sibling. They are reached when the scope starts (a run, an iteration, a branch); every other
 *   block is reached through a taken edge.
 */
import { normalizeName } from './references';
import type { WorkflowGraph } from './types';

export interface ScopeIndex {
  /** The container whose body this is; null for the top level. */
  container: string | null;
  /** Block ids in graph order. */
  blocks: string[];
  /** Per edge of the scope, in graph order (frames keep edge statuses in this order): */
  sources: string[];
  targets: string[];
  handles: string[];
  /** Positions (into the arrays above) of each block's incoming and outgoing edges. */
  incoming: Map<string, number[]>;
  outgoing: Map<string, number[]>;
  entries: Set<string>;
}

export interface GraphIndex {
  graph: WorkflowGraph;
  /** Normalized names of all blocks: what references may name. */
  blockNames: Set<string>;
  /** Normalized name of each block, by id. */
  names: Map<string, string>;
  startId?: string;
  /** By container id; the top level under `''`. */
  scopes: Map<string, ScopeIndex>;
  /** Whether the block's config names an environment variable (`{{NAME}}`) anywhere. */
  usesEnvironment(id: string): boolean;
}

export const topLevel = '';

function emptyScope(container: string | null): ScopeIndex {
  return {
    container,
    blocks: [],
    sources: [],
    targets: [],
    handles: [],
    incoming: new Map(),
    outgoing: new Map(),
    entries: new Set(),
  };
}

export function indexGraph(graph: WorkflowGraph): GraphIndex {
  const scopes = new Map<string, ScopeIndex>([[topLevel, emptyScope(null)]]);
  const names = new Map<string, string>();
  let startId: string | undefined;
  const blocks = Object.values(graph.blocks);
  for (const block of blocks) {
    if (block.type === 'loop' || block.type === 'parallel') scopes.set(block.id, emptyScope(block.id));
  }
  for (const block of blocks) {
    names.set(block.id, normalizeName(block.name));
    if (block.type === 'start' && startId === undefined) startId = block.id;
    const scope = scopes.get(block.parentId ?? topLevel)!;
    scope.blocks.push(block.id);
    scope.incoming.set(block.id, []);
    scope.outgoing.set(block.id, []);
  }
  for (const edge of graph.edges) {
    const source = graph.blocks[edge.source];
    const target = graph.blocks[edge.target];
    if (target.parentId === source.id) continue;
    const scope = scopes.get(source.parentId ?? topLevel)!;
    const position = scope.sources.length;
    scope.sources.push(edge.source);
    scope.targets.push(edge.target);
    scope.handles.push(edge.sourceHandle ?? 'source');
    scope.outgoing.get(edge.source)!.push(position);
    scope.incoming.get(edge.target)!.push(position);
  }
  for (const scope of scopes.values()) {
    if (scope.container === null) {
      if (startId !== undefined) scope.entries.add(startId);
    } else {
      for (const id of scope.blocks) if (scope.incoming.get(id)!.length === 0) scope.entries.add(id);
    }
  }
  const environment = new Map<string, boolean>();
  const usesEnvironment = (id: string) => {
    let uses = environment.get(id);
    if (uses === undefined) {
      uses = JSON.stringify(graph.blocks[id].config).includes('{{');
      environment.set(id, uses);
    }
    return uses;
  };
  return { graph, blockNames: new Set(names.values()), names, startId, scopes, usesEnvironment };
}
