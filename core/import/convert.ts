/**
 * Sim's workflow state → our graph. Every block is mapped (blocks/), every edge's handle put in our
 * terms, the workflow's variables given a block of their own; what cannot run here with the same
 * meaning is collected over the whole workflow and refused at once, so the user sees every block
 * to change, and the result is checked as any saved graph is.
 */
import { ValidationError } from '../errors';
import { validateGraph } from '../engine/graph';
import type { Block, Edge, WorkflowGraph } from '../engine/types';
import { droppedTypes, mappingOf, simTriggerTypes } from './blocks';
import {
  containerEndHandles,
  containerStartHandles,
  readersOfContainerResults,
  simParentId,
} from './containers';
import type { BlockMapContext } from './mapping';
import { importedBlockName, normalizeVariableReferences, simReferenceName } from './references';
import type {
  ConvertedWorkflow,
  ImportContext,
  ImportWarning,
  SimBlock,
  SimEdge,
  SimWorkflowState,
  UnsupportedBlock,
  WorkflowFile,
} from './types';
import { UnsupportedWorkflowError } from './types';
import { withStartingVariables } from './workflow-variables';

interface Conversion {
  warnings: ImportWarning[];
  unsupported: UnsupportedBlock[];
}

function refuseBlock(conversion: Conversion, sim: SimBlock, reason: string): void {
  conversion.unsupported.push({ id: sim.id, name: sim.name, type: sim.type, reason });
}

/** The handle an edge takes here; undefined when Sim's handle has no counterpart. */
function handleOf(edge: SimEdge): string | undefined {
  const handle = edge.sourceHandle ?? 'source';
  if (handle === 'source' || handle.startsWith('source-')) return 'source';
  if (containerEndHandles.includes(handle)) return 'source';
  if (containerStartHandles.includes(handle)) return handle;
  if (handle === 'error' || handle.startsWith('condition-') || handle.startsWith('router-')) return handle;
  return undefined;
}

/** Sim starts a container's body at the blocks its start handle points to; here, at those no sibling points to. */
function checkBodies(state: SimWorkflowState, kept: Set<string>, conversion: Conversion): void {
  for (const child of Object.values(state.blocks)) {
    const parent = simParentId(child);
    if (!parent || !kept.has(child.id)) continue;
    const fromStart = state.edges.some((edge) => edge.source === parent && edge.target === child.id);
    const fromSibling = state.edges.some(
      (edge) =>
        edge.target === child.id &&
        kept.has(edge.source) &&
        simParentId(state.blocks[edge.source] ?? child) === parent &&
        edge.source !== parent,
    );
    if (!fromStart && !fromSibling) {
      refuseBlock(
        conversion,
        child,
        'it is connected to nothing inside its container, so Sim never runs it (connect it or delete it)',
      );
    } else if (fromStart && fromSibling) {
      refuseBlock(
        conversion,
        child,
        "it is both the start of its container's body and the target of a block inside it",
      );
    }
  }
}

function warnOfContainerResults(blocks: Record<string, Block>, conversion: Conversion): void {
  for (const reader of readersOfContainerResults(blocks)) {
    conversion.warnings.push({
      blockId: reader.block.id,
      message: `${reader.block.name}: ${reader.difference}`,
    });
  }
}

function convertBlocks(
  state: SimWorkflowState,
  context: ImportContext,
  conversion: Conversion,
): { blocks: Record<string, Block>; kept: Set<string> } {
  const list = Object.values(state.blocks);
  const kept = new Set<string>();
  const blockNames = new Set<string>();
  for (const sim of list) {
    if (droppedTypes.includes(sim.type)) {
      conversion.warnings.push({
        blockId: sim.id,
        message: `The ${sim.type} block "${sim.name}" is dropped: it only annotates the canvas`,
      });
      continue;
    }
    kept.add(sim.id);
    blockNames.add(simReferenceName(sim.name));
  }
  const triggers = list.filter((sim) => simTriggerTypes.includes(sim.type));
  for (const extra of triggers.slice(1)) {
    refuseBlock(
      conversion,
      extra,
      `it is a second trigger; a workflow here starts from one start block ("${triggers[0].name}")`,
    );
  }

  const blocks: Record<string, Block> = {};
  for (const sim of list) {
    if (!kept.has(sim.id)) continue;
    const mapping = mappingOf(sim.type);
    if (!mapping) {
      refuseBlock(conversion, sim, `the block type "${sim.type}" has no counterpart here`);
      continue;
    }
    const mapContext: BlockMapContext = {
      sim,
      state,
      blockNames,
      outgoing: state.edges.filter((edge) => edge.source === sim.id),
      context,
      warn: (message) => conversion.warnings.push({ blockId: sim.id, message: `${sim.name}: ${message}` }),
      refuse: (reason) => refuseBlock(conversion, sim, reason),
    };
    const name = importedBlockName(sim.name);
    if (name !== sim.name.trim()) {
      mapContext.warn(`renamed "${name}": references leave dots out of block names, and so do names here`);
    }
    const parentId = simParentId(sim);
    blocks[sim.id] = {
      id: sim.id,
      type: mapping.type,
      name,
      parentId: parentId ?? null,
      enabled: sim.enabled !== false,
      config: normalizeVariableReferences(mapping.config(mapContext)),
    };
  }
  checkBodies(state, kept, conversion);
  warnOfContainerResults(blocks, conversion);
  if (triggers.length === 0) {
    // A trigger of a kind this service lacks (a schedule, a webhook) is the better answer, when there is one.
    if (conversion.unsupported.length > 0) throw new UnsupportedWorkflowError(conversion.unsupported);
    throw new ValidationError('The workflow has no start block', [
      { path: 'workflow.blocks', message: `Expected one of ${simTriggerTypes.join(', ')}` },
    ]);
  }
  return { blocks, kept };
}

function convertEdges(state: SimWorkflowState, kept: Set<string>, conversion: Conversion): Edge[] {
  const edges: Edge[] = [];
  state.edges.forEach((edge, index) => {
    if (!kept.has(edge.source) || !kept.has(edge.target)) return;
    const sim = state.blocks[edge.source];
    const mapping = mappingOf(sim.type);
    let handle = handleOf(edge);
    if (handle !== undefined && mapping?.edgeHandle) handle = mapping.edgeHandle(edge, handle);
    if (handle === undefined) {
      refuseBlock(conversion, sim, `its edge handle "${edge.sourceHandle}" has no counterpart here`);
      return;
    }
    edges.push({
      id: typeof edge.id === 'string' && edge.id !== '' ? edge.id : `edge-${index + 1}`,
      source: edge.source,
      target: edge.target,
      sourceHandle: handle,
    });
  });
  return edges;
}

/** A graph that fails our checks: the problems on a block are that block's, the rest a 400. */
function checked(graph: WorkflowGraph, state: SimWorkflowState, conversion: Conversion): WorkflowGraph {
  try {
    return validateGraph(graph);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const loose = [];
    for (const detail of error.details ?? []) {
      const blockId = /^blocks\.([^.]+)/.exec(detail.path)?.[1];
      const sim = blockId ? state.blocks[blockId] : undefined;
      if (sim) refuseBlock(conversion, sim, detail.message);
      else loose.push(detail);
    }
    if (loose.length > 0)
      throw new ValidationError('The workflow cannot be imported', loose, { cause: error });
    throw new UnsupportedWorkflowError(conversion.unsupported, { cause: error });
  }
}

/** Blocks keyed by their own id, which edges and parents use, whatever key the file gave them. */
function keyedById(state: SimWorkflowState): SimWorkflowState {
  const blocks = Object.entries(state.blocks).map(([key, sim]) => ({
    ...sim,
    id: typeof sim.id === 'string' && sim.id !== '' ? sim.id : key,
    name: typeof sim.name === 'string' ? sim.name : key,
  }));
  return { ...state, blocks: Object.fromEntries(blocks.map((sim) => [sim.id, sim])) };
}

function convertSim(
  file: SimWorkflowState,
  context: ImportContext,
): { graph: WorkflowGraph; warnings: ImportWarning[] } {
  const state = keyedById(file);
  const conversion: Conversion = { warnings: [], unsupported: [] };
  const { blocks, kept } = convertBlocks(state, context, conversion);
  const edges = convertEdges(state, kept, conversion);
  if (conversion.unsupported.length > 0) throw new UnsupportedWorkflowError(conversion.unsupported);
  const startId = Object.values(blocks).find((block) => block.type === 'start')!.id;
  const graph = withStartingVariables({ blocks, edges, loops: {}, parallels: {} }, state, startId);
  return { graph: checked(graph, state, conversion), warnings: conversion.warnings };
}

/** Throws UnsupportedWorkflowError: status 422, code 'UNSUPPORTED_WORKFLOW', listing EVERY offending block. */
export function convertWorkflowFile(file: WorkflowFile, context: ImportContext): ConvertedWorkflow {
  const described = {
    ...(file.name !== undefined ? { name: file.name } : {}),
    ...(file.description !== undefined ? { description: file.description } : {}),
  };
  if (file.kind === 'graph') return { graph: validateGraph(file.graph), ...described, warnings: [] };
  const { graph, warnings } = convertSim(file.state, context);
  return { graph, ...described, warnings };
}
