/**
 * What the import tests share: reading the Sim fixtures, running a converted graph through the engine
 * with recorded model and HTTP answers, and a check of the rules Sim's importer applies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToCompletion } from '../../../core/engine/run';
import type {
  EngineDeps,
  ModelGateway,
  ModelRequest,
  ModelResponse,
  RunResult,
  WorkflowGraph,
} from '../../../core/engine/types';
import { convertWorkflowFile, type ImportContext, readWorkflowFile, toSimExport } from '../../../core/import';
import type { HttpClient, HttpRequest } from '../../../core/net/http';
import { contextOf, depsOf, fakeClock, inProcessRunner } from '../engine/fixtures';

const fixtures = join(__dirname, '..', '..', 'fixtures', 'sim');

export function fixtureText(name: string): string {
  return readFileSync(join(fixtures, name), 'utf8');
}

export const noChildren: ImportContext = { childWorkflowId: () => undefined };

/** Reads and converts a fixture; the conversion's warnings come with it. */
export function importFixture(name: string, context: ImportContext = noChildren) {
  return convertWorkflowFile(readWorkflowFile(fixtureText(name)), context);
}

/** A model that answers from a recording, by the request's model; every request is kept. */
export function recordedModels(
  answers: Record<string, (request: ModelRequest) => Partial<ModelResponse>>,
): ModelGateway & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const answer = answers[request.model];
      if (!answer) throw new Error(`No recorded answer for model ${request.model}`);
      const recorded = answer(request);
      return {
        content: recorded.content ?? JSON.stringify(recorded.structured ?? ''),
        model: request.model,
        tokens: { prompt: 10, completion: 5, total: 15 },
        ...recorded,
      };
    },
  };
}

/** HTTP answered from a table keyed by method and URL; every request is kept. Nothing leaves the process. */
export function recordedHttp(
  answers: Record<string, { status?: number; body: unknown }>,
): HttpClient & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async request(request) {
      requests.push(request);
      const answer = answers[`${request.method} ${request.url}`];
      if (!answer)
        return {
          status: 404,
          headers: { 'content-type': 'text/plain' },
          body: new TextEncoder().encode('not found'),
        };
      return {
        status: answer.status ?? 200,
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode(JSON.stringify(answer.body)),
      };
    },
  };
}

export interface RunOptions {
  input?: Record<string, unknown>;
  environment?: Record<string, string>;
  deps?: Partial<EngineDeps>;
}

/** Runs a graph to its end on a fake clock, code evaluated in this process. */
export function runGraph(graph: WorkflowGraph, options: RunOptions = {}): Promise<RunResult> {
  const deps = depsOf(inProcessRunner(), fakeClock(), options.deps ?? {});
  return runToCompletion(contextOf(graph, options.input ?? {}, options.environment ?? {}), deps);
}

/** Our graph → Sim export → read and converted again. */
export function viaSimExport(graph: WorkflowGraph, context: ImportContext = noChildren) {
  const { document, warnings } = toSimExport({
    name: 'Round trip',
    graph,
    exportedAt: '2026-11-02T00:00:00.000Z',
  });
  const converted = convertWorkflowFile(readWorkflowFile(JSON.stringify(document)), context);
  return { document, exportWarnings: warnings, converted };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The checks of Sim's importer (parseWorkflowJson in apps/sim/lib/workflows/operations/import-export.ts),
 * as read from its source: the root is an object; a `{data}` wrapper holding `state`, `version` or
 * `workflow` is taken off; the workflow is `state` when that is an object, else the root; `blocks` is
 * an object and `edges` an array; each block an object with `id`, `type` and a numeric `position`;
 * each edge an object with `id`, `source` and `target`. Returns its error messages.
 */
export function simImportErrors(jsonText: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(jsonText);
  } catch (error) {
    return [`Invalid JSON: ${(error as Error).message}`];
  }
  if (!isRecord(data)) return ['Invalid JSON: Root must be an object'];
  let root = data;
  if (isRecord(root.data) && (root.data.state || root.data.version || root.data.workflow)) root = root.data;
  const workflow = isRecord(root.state) ? root.state : root;
  if (!isRecord(workflow.blocks)) return ['Missing or invalid field: blocks'];
  if (!Array.isArray(workflow.edges)) return ['Missing or invalid field: edges (must be an array)'];
  const errors: string[] = [];
  for (const [key, block] of Object.entries(workflow.blocks)) {
    if (!isRecord(block)) {
      errors.push(`Invalid block ${key}: must be an object`);
      continue;
    }
    if (!block.id) errors.push(`Block ${key} missing required field: id`);
    if (!block.type) errors.push(`Block ${key} missing required field: type`);
    const position = block.position;
    if (!isRecord(position) || typeof position.x !== 'number' || typeof position.y !== 'number') {
      errors.push(`Block ${key} missing or invalid position`);
    }
  }
  workflow.edges.forEach((edge: unknown, index: number) => {
    if (!isRecord(edge)) {
      errors.push(`Invalid edge at index ${index}: must be an object`);
      return;
    }
    for (const field of ['id', 'source', 'target']) {
      if (!edge[field]) errors.push(`Edge at index ${index} missing required field: ${field}`);
    }
  });
  return errors;
}
