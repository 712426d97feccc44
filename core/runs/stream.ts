/**
 * Streamed runs: the engine runs in the caller's process (a state machine cannot stream), and the
 * caller gets server-sent events as the run goes:
 *
 *   data: {"blockId":"<id>","chunk":"<text>"}            model text as it arrives; a selected output when its block completes
 *
 * Without `selectedOutputs` every agent block's text streams. With it, only what was selected is
 * sent, each once: a selected agent `content` as its chunks (or whole when it completes, if its model
 * sent no chunks), any other selected output when its block completes.
 *   data: {"event":"error","error":"<message>"}           only when the run failed
 *   data: {"event":"done","success":<bool>,"output":<final output>,"metadata":{"duration":<ms>}}
 *   data: [DONE]                                          always last
 *
 * The run is logged like any other (Finalize's use case writes its entry), and secret values are
 * redacted from every frame as from every answer.
 */
import { runToCompletion } from '../engine/run';
import type { EngineDeps, RunResult, WorkflowGraph } from '../engine/types';
import { redactSecrets } from '../environment/redact';
import { ValidationError } from '../errors';
import {
  environmentFor,
  type FinalizeDeps,
  finalizeRun,
  graphOf,
  type StepDeps,
  secretsOfRun,
} from './service';
import type { ExecutionRequest, ExecutionState } from './types';

export const doneMarker = 'data: [DONE]\n\n';

/** One server-sent event carrying `value` as JSON. */
export function sseFrame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** A selected output: the block it comes from and the path inside that block's output. */
export interface SelectedOutput {
  blockId: string;
  path: string[];
}

/** Names compared as the interface says: lowercased, spaces removed. */
function normalizedName(name: string): string {
  return name.toLowerCase().replace(/\s+/g, '');
}

/**
 * Each `<blockName>.<path>` (or `<blockId>.<path>`) of `selectedOutputs`, resolved against the graph.
 * An entry naming no block is a 400 naming it, before anything is streamed.
 */
export function resolveSelectedOutputs(
  graph: WorkflowGraph,
  selectedOutputs: string[] = [],
): SelectedOutput[] {
  return selectedOutputs.map((entry, index) => {
    const [name, ...path] = entry.split('.');
    const wanted = normalizedName(name ?? '');
    const block =
      graph.blocks[name ?? ''] ??
      Object.values(graph.blocks).find((candidate) => normalizedName(candidate.name) === wanted);
    if (!block || wanted === '') {
      throw new ValidationError(`selectedOutputs: "${entry}" names no block of this workflow`, [
        { path: `selectedOutputs.${index}`, message: 'No block with this name or id' },
      ]);
    }
    return { blockId: block.id, path: path.filter((part) => part !== '') };
  });
}

function valueAt(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A selected output as chunk text: a string as it is, anything else as JSON. */
function chunkText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** The output of a model block that arrives as chunks. */
const streamedPath = 'content';

/**
 * What a streamed run sends of its blocks. Nothing selected: every chunk, and no output on
 * completion (the default). Otherwise only the selected outputs, each once: chunks for a selected
 * `content`, and a block's completed output for the rest, and for a `content` that came as no chunk.
 */
function streamSelection(all: SelectedOutput[]) {
  // The same output selected twice (by name and by id) is sent once.
  const selected = [
    ...new Map(all.map((wanted) => [JSON.stringify([wanted.blockId, ...wanted.path]), wanted])).values(),
  ];
  const chunked = new Set(
    selected
      .filter((wanted) => wanted.path.length === 1 && wanted.path[0] === streamedPath)
      .map((wanted) => wanted.blockId),
  );
  // Blocks whose current run has sent chunks, so that their content is not sent again at the end.
  const streaming = new Set<string>();
  return {
    streamsChunksOf(blockId: string): boolean {
      if (selected.length === 0) return true;
      if (!chunked.has(blockId)) return false;
      streaming.add(blockId);
      return true;
    },
    completedOutputsOf(blockId: string): string[][] {
      const sentAsChunks = streaming.delete(blockId);
      return selected
        .filter((wanted) => wanted.blockId === blockId)
        .filter((wanted) => !(sentAsChunks && wanted.path.length === 1 && wanted.path[0] === streamedPath))
        .map((wanted) => wanted.path);
    },
  };
}

export interface StreamDeps {
  step: Pick<StepDeps, 'deployments' | 'drafts' | 'engine' | 'environmentOf'>;
  finalize: FinalizeDeps;
  /**
   * How long a streamed run may take, from its start: past it the stream ends with an error and the
   * run is logged as timed out, before the function that runs it would be cut off with neither.
   */
  budgetInMs?: number;
}

export interface PreparedStream {
  request: ExecutionRequest;
  graph: WorkflowGraph;
  selected: SelectedOutput[];
}

/** Everything that can refuse the request, done before the first byte is sent. */
export async function prepareStream(
  deps: StreamDeps,
  request: ExecutionRequest,
  selectedOutputs: string[] | undefined,
): Promise<PreparedStream> {
  const graph = await graphOf(deps.step, request);
  return { request, graph, selected: resolveSelectedOutputs(graph, selectedOutputs) };
}

/** How a streamed run ended, for the caller's own log: the frames have said it to the client. */
export interface StreamOutcome {
  success: boolean;
  durationInMs: number;
  /** What broke the run or its log entry (not a block failing, which is the run's own result). */
  fault?: unknown;
}

/**
 * Runs the workflow, writing each frame as it happens; never throws once it has begun, as the
 * client can only be told through frames by then.
 */
export async function streamRun(
  deps: StreamDeps,
  prepared: PreparedStream,
  write: (frame: string) => void,
): Promise<StreamOutcome> {
  const { request, graph, selected } = prepared;
  let secrets: string[] = [];
  // Once the run is over (or out of time) nothing more is written, whatever the engine still does.
  let closed = false;
  let engineOpen = true;
  const send = (frame: unknown) => {
    if (!closed) write(sseFrame(redactSecrets(frame, secrets)));
  };
  let ended: ExecutionState;
  let crash: unknown;
  let fault: unknown;
  try {
    const environment = await environmentFor(deps.step, graph, request.workspaceId);
    secrets = secretsOfRun(environment, graph);
    const selection = streamSelection(selected);
    const engine: EngineDeps = {
      ...deps.step.engine,
      onChunk: (blockId, chunk) => {
        if (engineOpen && selection.streamsChunksOf(blockId)) send({ blockId, chunk });
      },
      onBlockOutput: (blockId, blockOutput) => {
        if (!engineOpen) return;
        for (const path of selection.completedOutputsOf(blockId)) {
          send({ blockId, chunk: chunkText(valueAt(blockOutput, path)) });
        }
      },
    };
    const run = runToCompletion({ ...runContextOf(request, graph), environment }, engine);
    const result = redactSecrets(
      await withinStreamBudget(run, request, deps.budgetInMs),
      secrets,
    ) as RunResult;
    engineOpen = false;
    ended = { ...request, step: { status: 'done', result } };
  } catch (error) {
    // A crash is logged as the state machine's Catch logs a crashed step: as a failed run.
    engineOpen = false;
    crash = error;
    ended = { ...request, failure: failureOf(error, secrets) };
  }
  let success = false;
  let output: unknown;
  let durationInMs = 0;
  try {
    const answer = await finalizeRun(deps.finalize, ended);
    success = answer.body.success;
    output = answer.body.output;
    durationInMs = answer.body.metadata.duration;
    if (!success)
      send({
        event: 'error',
        error: crash ? errorMessageOf(crash) : (answer.body.error ?? 'The run failed'),
      });
  } catch (error) {
    fault = error;
    send({ event: 'error', error: 'The run failed' });
  }
  send({ event: 'done', success, output: output ?? {}, metadata: { duration: durationInMs } });
  write(doneMarker);
  closed = true;
  return { success, durationInMs, ...((fault ?? crash) === undefined ? {} : { fault: fault ?? crash }) };
}

/** Named as a Task over its time-out is, so Finalize logs "The run timed out". */
export class StreamBudgetExceededError extends Error {
  override name = 'States.Timeout';
}

async function withinStreamBudget<T>(
  run: Promise<T>,
  request: ExecutionRequest,
  budgetInMs: number | undefined,
): Promise<T> {
  if (budgetInMs === undefined) return run;
  let timer: NodeJS.Timeout | undefined;
  const leftInMs = Date.parse(request.startedAt) + budgetInMs - Date.now();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StreamBudgetExceededError(`The run did not finish within ${Math.round(budgetInMs / 1000)} s`),
        ),
      Math.max(0, leftInMs),
    );
  });
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
    run.catch(() => undefined);
  }
}

/** In the shape the Step task's Catch hands Finalize (`Cause` as Lambda writes it). */
function failureOf(error: unknown, secrets: string[]): ExecutionState['failure'] {
  const errorMessage = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
  return {
    Error: error instanceof Error ? error.name : 'Error',
    Cause: JSON.stringify({ errorMessage }),
  };
}

function runContextOf(request: ExecutionRequest, graph: WorkflowGraph) {
  return {
    executionId: request.executionId,
    workflowId: request.workflowId,
    workspaceId: request.workspaceId,
    trigger: request.trigger,
    input: request.input,
    graph,
    startedAt: request.startedAt,
    ...(request.policy === undefined ? {} : { policy: request.policy }),
  };
}

/** A run the engine refused (a bad graph) says why; anything else stays internal. */
function errorMessageOf(error: unknown): string {
  if (error instanceof ValidationError || error instanceof StreamBudgetExceededError) return error.message;
  return 'The run failed';
}
