/**
 * Our graph → Sim's export (version 1.0), for the blocks that have a Sim counterpart. The shape is
 * what Sim's importer checks (blocks with id, type and a position; edges with id, source and
 * target) and what its blocks read (sub-block ids and value shapes of each block definition).
 */
import type { Block, Edge, WorkflowGraph } from '../engine/types';
import { simModelOf } from './blocks/models';
import { readersOfContainerResults } from './containers';
import { simReferenceName } from './references';
import { isRecord, objectToTable } from './sim-values';
import type { ImportWarning, SimBlock, SimEdge, SimVariable } from './types';

type SubBlocks = SimBlock['subBlocks'];

interface ExportState {
  warnings: ImportWarning[];
  /** Names of the variables the graph assigns: Sim's variables block sets only variables the workflow declares. */
  variables: Map<string, SimVariable>;
}

function sub(entries: Array<[id: string, type: string, value: unknown]>): SubBlocks {
  const result: SubBlocks = {};
  for (const [id, type, value] of entries) {
    if (value === undefined) continue;
    result[id] = { id, type, value };
  }
  return result;
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : String(value);
}

const singleReference = /^<[^<>]+>$/;

/** JSON text as Sim's code editors hold it: a value that is exactly one reference stands unquoted. */
function jsonWithBareReferences(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.replace(/"(<[^<>"\\]+>)"/g, (whole, reference: string) =>
    singleReference.test(reference) ? reference : whole,
  );
}

/** A key written out or kept as `set` is not exported; a `{{NAME}}` reference is. */
function exportedApiKey(block: Block, state: ExportState): string | undefined {
  const key = block.config.apiKey;
  if (key === undefined || key === null || key === '') return undefined;
  if (typeof key === 'string' && /^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/.test(key.trim())) return key.trim();
  state.warnings.push({
    blockId: block.id,
    message: `${block.name}: its API key is not exported; set apiKey in Sim`,
  });
  return undefined;
}

function modelSubBlocks(block: Block, state: ExportState): Array<[string, string, unknown]> {
  if (block.config.baseUrl !== undefined) {
    state.warnings.push({
      blockId: block.id,
      message: `${block.name}: its baseUrl has no counterpart in Sim and is not exported`,
    });
  }
  return [
    ['model', 'combobox', simModelOf(String(block.config.provider ?? ''), String(block.config.model ?? ''))],
    ['apiKey', 'short-input', exportedApiKey(block, state)],
    ['temperature', 'slider', block.config.temperature],
  ];
}

function conditionsOf(block: Block): string {
  const list = Array.isArray(block.config.conditions) ? block.config.conditions : [];
  let seenIf = false;
  const rows = list.filter(isRecord).map((condition) => {
    const expression = typeof condition.expression === 'string' ? condition.expression : '';
    const isElse = expression.trim() === '' || expression.trim() === 'else';
    const title = isElse ? 'else' : seenIf ? 'else if' : 'if';
    seenIf = true;
    return { id: String(condition.id), title, value: isElse ? '' : expression };
  });
  return JSON.stringify(rows);
}

function variableType(value: unknown): string {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  if (isRecord(value)) return 'object';
  return 'plain';
}

function variableAssignments(block: Block, state: ExportState): unknown[] {
  const list = Array.isArray(block.config.assignments) ? block.config.assignments : [];
  return list.filter(isRecord).map((assignment, index) => {
    const name = String(assignment.name ?? assignment.variableName ?? '');
    const key = simReferenceName(name);
    let variable = state.variables.get(key);
    if (!variable) {
      variable = { id: `variable-${state.variables.size + 1}`, name, type: 'plain', value: '' };
      state.variables.set(key, variable);
    }
    const type = variableType(assignment.value);
    const value =
      type === 'object' || type === 'array'
        ? JSON.stringify(assignment.value)
        : (textOf(assignment.value) ?? '');
    return {
      id: `${block.id}-assignment-${index + 1}`,
      variableId: variable.id,
      variableName: name,
      type,
      value,
      isExisting: true,
    };
  });
}

/** Sim's own limit of a wait held in the run; longer ones are async there. */
const simInProcessWaitLimitInMs = 5 * 60_000;

function waitSubBlocks(block: Block): SubBlocks {
  const durationMs = Number(block.config.durationMs ?? 0);
  if (durationMs <= simInProcessWaitLimitInMs) {
    return sub([
      ['timeValue', 'short-input', String(durationMs / 1000)],
      ['timeUnit', 'dropdown', 'seconds'],
      ['async', 'switch', false],
    ]);
  }
  return sub([
    ['timeValue', 'short-input', String(durationMs / 60_000)],
    ['timeUnitLong', 'dropdown', 'minutes'],
    ['async', 'switch', true],
  ]);
}

/** The Sim type and sub-blocks of a block; undefined when Sim has no counterpart. */
function simShape(block: Block, state: ExportState): { type: string; subBlocks: SubBlocks } | undefined {
  const { config } = block;
  switch (block.type) {
    case 'start': {
      const fields = Array.isArray(config.inputFormat) ? config.inputFormat.filter(isRecord) : [];
      const rows = fields.map((field, index) => ({
        id: `field-${index + 1}`,
        name: field.name,
        // Sim's editor names a list of files `file[]`.
        type: field.type === 'files' ? 'file[]' : (field.type ?? 'string'),
        value: '',
        collapsed: false,
        ...(field.required === true ? { required: true } : {}),
        ...(typeof field.description === 'string' ? { description: field.description } : {}),
      }));
      return { type: 'start_trigger', subBlocks: sub([['inputFormat', 'input-format', rows]]) };
    }
    case 'function':
      if (config.timeoutMs !== undefined) {
        state.warnings.push({
          blockId: block.id,
          message: `${block.name}: its timeoutMs has no counterpart in Sim and is not exported`,
        });
      }
      return {
        type: 'function',
        subBlocks: sub([
          ['language', 'dropdown', 'javascript'],
          ['code', 'code', textOf(config.code) ?? ''],
        ]),
      };
    case 'agent': {
      const messages = [
        ...(typeof config.systemPrompt === 'string' && config.systemPrompt !== ''
          ? [{ role: 'system', content: config.systemPrompt }]
          : []),
        { role: 'user', content: textOf(config.userPrompt) ?? '' },
      ];
      return {
        type: 'agent',
        subBlocks: sub([
          ['messages', 'messages-input', messages],
          ...modelSubBlocks(block, state),
          ['maxTokens', 'short-input', textOf(config.maxTokens)],
          [
            'responseFormat',
            'code',
            config.responseFormat === undefined
              ? undefined
              : typeof config.responseFormat === 'string'
                ? config.responseFormat
                : JSON.stringify(config.responseFormat, null, 2),
          ],
        ]),
      };
    }
    case 'router': {
      const routes = (Array.isArray(config.routes) ? config.routes : [])
        .filter(isRecord)
        .map((route, index) => ({
          id: String(route.id),
          title: `Route ${index + 1}`,
          value: textOf(route.description) ?? '',
        }));
      return {
        type: 'router_v2',
        subBlocks: sub([
          ['context', 'long-input', textOf(config.prompt) ?? ''],
          ['routes', 'router-input', routes],
          ...modelSubBlocks(block, state),
        ]),
      };
    }
    case 'condition':
      return { type: 'condition', subBlocks: sub([['conditions', 'condition-input', conditionsOf(block)]]) };
    case 'api':
      return {
        type: 'api',
        subBlocks: sub([
          ['url', 'short-input', textOf(config.url) ?? ''],
          ['method', 'dropdown', textOf(config.method)?.toUpperCase() ?? 'GET'],
          ['params', 'table', isRecord(config.query) ? objectToTable(config.query) : undefined],
          ['headers', 'table', isRecord(config.headers) ? objectToTable(config.headers) : undefined],
          [
            'body',
            'code',
            config.body === undefined
              ? undefined
              : typeof config.body === 'string'
                ? config.body
                : jsonWithBareReferences(config.body),
          ],
          // Ours waits 30 s unless told; Sim, 5 minutes.
          ['timeout', 'short-input', textOf(config.timeoutMs ?? 30_000)],
        ]),
      };
    case 'response':
      return {
        type: 'response',
        subBlocks: sub([
          ['dataMode', 'dropdown', 'json'],
          ['data', 'code', jsonWithBareReferences(config.data ?? {})],
          ['status', 'short-input', textOf(config.status)],
          ['headers', 'table', isRecord(config.headers) ? objectToTable(config.headers) : undefined],
        ]),
      };
    case 'wait':
      return { type: 'wait', subBlocks: waitSubBlocks(block) };
    case 'workflow':
      return isRecord(config.input)
        ? {
            type: 'workflow_input',
            subBlocks: sub([
              ['workflowId', 'workflow-selector', config.workflowId],
              ['inputMapping', 'input-mapping', config.input],
            ]),
          }
        : {
            type: 'workflow',
            subBlocks: sub([
              ['workflowId', 'workflow-selector', config.workflowId],
              ['input', 'short-input', textOf(config.input)],
            ]),
          };
    case 'variables':
      return {
        type: 'variables',
        subBlocks: sub([['variables', 'variables-input', variableAssignments(block, state)]]),
      };
    case 'loop':
    case 'parallel':
      return { type: block.type, subBlocks: {} };
    default:
      return undefined;
  }
}

function collectionText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? '');
}

function containerData(block: Block): Record<string, unknown> {
  const { config } = block;
  if (block.type === 'loop') {
    const loopType = typeof config.loopType === 'string' ? config.loopType : 'for';
    return {
      loopType,
      ...(loopType === 'for' ? { count: Number(config.iterations ?? 0) } : {}),
      ...(loopType === 'forEach' ? { collection: collectionText(config.forEachItems) } : {}),
      ...(loopType === 'while' ? { whileCondition: config.condition } : {}),
      ...(loopType === 'doWhile' ? { doWhileCondition: config.condition } : {}),
    };
  }
  const parallelType = typeof config.parallelType === 'string' ? config.parallelType : 'count';
  return parallelType === 'count'
    ? { parallelType, count: Number(config.count ?? 0) }
    : { parallelType, collection: collectionText(config.collection) };
}

/** Depth of each block along the edges of its scope, for a readable layout: Sim's importer needs positions. */
function positions(graph: WorkflowGraph, ids: string[]): Map<string, { x: number; y: number }> {
  const depth = new Map<string, number>();
  const visit = (id: string, level: number, seen: Set<string>) => {
    if (seen.has(id) || (depth.get(id) ?? -1) >= level) return;
    depth.set(id, level);
    seen.add(id);
    for (const edge of graph.edges) {
      if (edge.source === id && graph.blocks[edge.target]?.parentId === graph.blocks[id].parentId)
        visit(edge.target, level + 1, seen);
    }
    seen.delete(id);
  };
  for (const id of ids) {
    const block = graph.blocks[id];
    const reached = graph.edges.some(
      (edge) => edge.target === id && graph.blocks[edge.source]?.parentId === block.parentId,
    );
    if (!reached) visit(id, 0, new Set());
  }
  const rows = new Map<string, number>();
  const result = new Map<string, { x: number; y: number }>();
  for (const id of ids) {
    const scope = `${graph.blocks[id].parentId ?? ''}:${depth.get(id) ?? 0}`;
    const row = rows.get(scope) ?? 0;
    rows.set(scope, row + 1);
    result.set(id, { x: 100 + (depth.get(id) ?? 0) * 400, y: 100 + row * 200 });
  }
  return result;
}

function exportedEdges(graph: WorkflowGraph, kept: Set<string>): SimEdge[] {
  const edges: SimEdge[] = [];
  const entryEdges = new Set<string>();
  for (const edge of graph.edges) {
    if (!kept.has(edge.source) || !kept.has(edge.target)) continue;
    const source = graph.blocks[edge.source];
    const target = graph.blocks[edge.target];
    let handle = edge.sourceHandle ?? 'source';
    const isContainer = source.type === 'loop' || source.type === 'parallel';
    if (isContainer && target.parentId === source.id) {
      handle = `${source.type}-start-source`;
      entryEdges.add(target.id);
    } else if (isContainer && handle === 'source') handle = `${source.type}-end-source`;
    edges.push({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      sourceHandle: handle,
      targetHandle: 'target',
      type: 'default',
    });
  }
  // Sim enters a body only through the container's start handle; ours starts where no sibling points.
  for (const block of Object.values(graph.blocks)) {
    const parent = block.parentId ? graph.blocks[block.parentId] : undefined;
    if (!parent || !kept.has(block.id) || entryEdges.has(block.id)) continue;
    const fromSibling = graph.edges.some(
      (edge: Edge) => edge.target === block.id && graph.blocks[edge.source]?.parentId === parent.id,
    );
    if (fromSibling) continue;
    edges.push({
      id: `${parent.id}-start-${block.id}`,
      source: parent.id,
      target: block.id,
      sourceHandle: `${parent.type}-start-source`,
      targetHandle: 'target',
      type: 'default',
    });
  }
  return edges;
}

/** Sim export, version '1.0', of the blocks that have a Sim counterpart; Sim's importer (parseWorkflowJson) accepts it. */
export function toSimExport(workflow: {
  name: string;
  description?: string;
  graph: WorkflowGraph;
  exportedAt?: string;
}): {
  document: unknown;
  warnings: ImportWarning[];
} {
  const { graph } = workflow;
  const exportedAt = workflow.exportedAt ?? new Date().toISOString();
  const state: ExportState = { warnings: [], variables: new Map() };
  const blocks: Record<string, SimBlock> = {};
  const kept = new Set<string>();
  const ids = Object.keys(graph.blocks);
  const placed = positions(graph, ids);
  for (const id of ids) {
    const block = graph.blocks[id];
    const shape = simShape(block, state);
    if (!shape) {
      state.warnings.push({
        blockId: id,
        message: `${block.name}: the ${block.type} block has no counterpart in Sim and is not exported`,
      });
      continue;
    }
    kept.add(id);
    const isContainer = block.type === 'loop' || block.type === 'parallel';
    blocks[id] = {
      id,
      type: shape.type,
      name: block.name,
      position: placed.get(id) ?? { x: 0, y: 0 },
      subBlocks: shape.subBlocks,
      outputs: {},
      enabled: block.enabled !== false,
      horizontalHandles: true,
      advancedMode: false,
      triggerMode: false,
      height: 0,
      data: {
        ...(isContainer ? { ...containerData(block), width: 800, height: 400, type: 'subflowNode' } : {}),
        ...(block.parentId ? { parentId: block.parentId, extent: 'parent' } : {}),
      },
    };
  }
  const children = (parentId: string) =>
    ids.filter((id) => kept.has(id) && graph.blocks[id].parentId === parentId);
  const loops: Record<string, unknown> = {};
  const parallels: Record<string, unknown> = {};
  for (const id of kept) {
    const block = blocks[id];
    const data = block.data ?? {};
    if (block.type === 'loop') {
      loops[id] = {
        id,
        nodes: children(id),
        iterations: data.count ?? 5,
        loopType: data.loopType,
        forEachItems: data.collection ?? '',
        whileCondition: data.whileCondition ?? '',
        doWhileCondition: data.doWhileCondition ?? '',
      };
    } else if (block.type === 'parallel') {
      parallels[id] = {
        id,
        nodes: children(id),
        count: data.count ?? 5,
        distribution: data.collection ?? '',
        parallelType: data.parallelType,
      };
    }
  }
  for (const reader of readersOfContainerResults(graph.blocks)) {
    if (kept.has(reader.block.id)) {
      state.warnings.push({
        blockId: reader.block.id,
        message: `${reader.block.name}: ${reader.difference}`,
      });
    }
  }
  const variables = Object.fromEntries(
    [...state.variables.values()].map((variable) => [variable.id, variable]),
  );
  const document = {
    version: '1.0',
    exportedAt,
    state: {
      blocks,
      edges: exportedEdges(graph, kept),
      loops,
      parallels,
      variables,
      metadata: {
        name: workflow.name,
        ...(workflow.description ? { description: workflow.description } : {}),
        exportedAt,
      },
    },
  };
  return { document, warnings: state.warnings };
}
