/**
 * The run model (DESIGN.md §2): a run is a series of steps over a JSON checkpoint. A step runs every
 * ready block (all incoming edges settled, at least one taken) together, settles their outgoing edges,
 * and repeats until the graph is done, the run ends, or the step's time budget is used up.
 *
 * Edge bookkeeping drives everything: a block whose incoming edges were all pruned is skipped and
 * prunes its own outgoing edges, so branches not taken die out while joins reached another way
 * still run. What each block type does differently comes from its definition (blocks/types.ts).
 */
import { addModelUsage, emptyCost, modelCostOf } from './cost';
import { normalizeName, validateGraph } from './graph';
import { type ReferenceScope, interpolateCode, interpolateText, resolveValue } from './references';
import { blockDefinition } from './blocks/registry';
import type { BlockDefinition, BlockOutcome, BlockRun, ConfigResolver, ResponseData } from './blocks/types';
import type { CostSummary, EngineDeps, RunContext, RunResult, TraceSpan } from './types';

export type BlockStatus = 'pending' | 'done' | 'failed' | 'skipped';
export type EdgeStatus = 'pending' | 'taken' | 'pruned';

export interface BlockState {
  status: BlockStatus;
  output?: unknown;
  /** Message of a failure; with an error edge the block still counts as done. */
  error?: string;
  /** Position in execution order. */
  sequence?: number;
}

export interface RunEnd {
  /** Milliseconds since the epoch. */
  at: number;
  /** The run's error, naming the block that failed it. */
  error?: string;
  response?: ResponseData;
}

/** Everything a run needs to go on in another process. Plain JSON. */
export interface Checkpoint {
  version: 1;
  /** The context the run started from, its graph normalized. */
  context: RunContext;
  blocks: Record<string, BlockState>;
  /** Status of each edge, in the order of `context.graph.edges`. */
  edges: EdgeStatus[];
  /** Spans of the executed blocks, in execution order. */
  spans: TraceSpan[];
  cost: CostSummary;
  /** Workflow variables (`<variable.name>`). */
  variables: Record<string, unknown>;
  /** How many blocks have run; numbers the spans. */
  executed: number;
  end?: RunEnd;
}

export interface StepOptions {
  /** Time this step may spend; no new batch of blocks starts after it. Zero or less runs nothing. */
  budgetInMs: number;
}

export type StepResult =
  | { status: 'running'; checkpoint: Checkpoint }
  | { status: 'waiting'; checkpoint: Checkpoint; waitSeconds: number }
  | { status: 'done'; result: RunResult };

/** Lookups derived from the graph; rebuilt each step rather than stored. */
interface GraphIndex {
  order: string[];
  incoming: Map<string, number[]>;
  outgoing: Map<string, number[]>;
  blockNames: Set<string>;
  startId?: string;
}

function indexGraph(checkpoint: Checkpoint): GraphIndex {
  const { blocks, edges } = checkpoint.context.graph;
  const order = Object.keys(blocks);
  const incoming = new Map<string, number[]>(order.map((id) => [id, []]));
  const outgoing = new Map<string, number[]>(order.map((id) => [id, []]));
  edges.forEach((edge, index) => {
    incoming.get(edge.target)?.push(index);
    outgoing.get(edge.source)?.push(index);
  });
  return {
    order,
    incoming,
    outgoing,
    blockNames: new Set(order.map((id) => normalizeName(blocks[id].name))),
    startId: order.find((id) => blocks[id].type === 'start'),
  };
}

/** Validates the graph (throws `ValidationError`) and returns the checkpoint of a run not yet begun. */
export function startRun(context: RunContext): Checkpoint {
  const graph = validateGraph(context.graph);
  const blocks: Record<string, BlockState> = {};
  for (const id of Object.keys(graph.blocks)) blocks[id] = { status: 'pending' };
  return {
    version: 1,
    context: { ...context, graph },
    blocks,
    edges: graph.edges.map(() => 'pending'),
    spans: [],
    cost: emptyCost(),
    variables: {},
    executed: 0,
  };
}

/** Runs ready blocks until the run ends or the budget is used. Does not modify `checkpoint`. */
export async function runStep(
  checkpoint: Checkpoint,
  deps: EngineDeps,
  options: StepOptions,
): Promise<StepResult> {
  const state = structuredClone(checkpoint);
  const index = indexGraph(state);
  const stepStartedAt = deps.now();
  while (!state.end) {
    const ready = settle(state, index);
    if (ready.length === 0) {
      state.end = { at: deps.now() };
      break;
    }
    if (deps.now() - stepStartedAt >= options.budgetInMs) return { status: 'running', checkpoint: state };
    const executed = await Promise.all(ready.map((id) => executeBlock(id, state, index, deps)));
    for (const result of executed) apply(result, state, index);
    // apply() may have ended the run; the loop condition's narrowing does not know that.
    const end = state.end as RunEnd | undefined;
    if (end) end.at = deps.now();
  }
  return { status: 'done', result: finish(state, index) };
}

/** Runs a whole workflow in this process, for tests and benchmarks; a `waiting` step is resumed at once, not slept. */
export async function runToCompletion(context: RunContext, deps: EngineDeps): Promise<RunResult> {
  let checkpoint = startRun(context);
  for (;;) {
    const step = await runStep(checkpoint, deps, { budgetInMs: Number.POSITIVE_INFINITY });
    if (step.status === 'done') return step.result;
    checkpoint = step.checkpoint;
  }
}

/**
 * Skips what can no longer run (disabled, unreachable, or every incoming edge pruned), pruning
 * downstream as it goes, and returns the blocks that can run now.
 */
function settle(state: Checkpoint, index: GraphIndex): string[] {
  const { blocks } = state.context.graph;
  const skip = (id: string) => {
    state.blocks[id].status = 'skipped';
    for (const edge of index.outgoing.get(id)!)
      if (state.edges[edge] === 'pending') state.edges[edge] = 'pruned';
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const id of index.order) {
      if (state.blocks[id].status !== 'pending') continue;
      const incoming = index.incoming.get(id)!;
      if (incoming.some((edge) => state.edges[edge] === 'pending')) continue;
      const reached = id === index.startId || incoming.some((edge) => state.edges[edge] === 'taken');
      if (!reached || blocks[id].enabled === false) {
        skip(id);
        changed = true;
      }
    }
  }
  return index.order.filter(
    (id) =>
      state.blocks[id].status === 'pending' &&
      index.incoming.get(id)!.every((edge) => state.edges[edge] !== 'pending'),
  );
}

function scopeOf(state: Checkpoint, index: GraphIndex): ReferenceScope {
  const outputs: Record<string, unknown> = {};
  for (const id of index.order) {
    const block = state.blocks[id];
    if (block.status === 'done') outputs[normalizeName(state.context.graph.blocks[id].name)] = block.output;
  }
  return {
    blockNames: index.blockNames,
    outputs,
    start: index.startId ? state.blocks[index.startId].output : undefined,
    variables: state.variables,
    environment: state.context.environment,
  };
}

function resolverOf(scope: ReferenceScope): ConfigResolver {
  return {
    value: (value) => resolveValue(value, scope),
    text: (text) => interpolateText(text, scope),
    code: (code) => interpolateCode(code, scope),
  };
}

function resolveInputs(
  definition: BlockDefinition,
  run: BlockRun,
  scope: ReferenceScope,
): Record<string, unknown> {
  const resolve = resolverOf(scope);
  if (definition.resolveInputs) return definition.resolveInputs(run.block, resolve, run);
  return resolve.value(run.block.config) as Record<string, unknown>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isoTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

interface Executed {
  id: string;
  startedAt: number;
  endedAt: number;
  /** The resolved config with secrets left as `{{NAME}}`. */
  shownInputs?: Record<string, unknown>;
  outcome?: BlockOutcome;
  error?: string;
}

async function executeBlock(
  id: string,
  state: Checkpoint,
  index: GraphIndex,
  deps: EngineDeps,
): Promise<Executed> {
  const block = state.context.graph.blocks[id];
  const definition = blockDefinition(block.type);
  const run: BlockRun = { block, context: state.context, deps };
  const scope = scopeOf(state, index);
  const startedAt = deps.now();
  let shownInputs: Record<string, unknown> | undefined;
  try {
    shownInputs = resolveInputs(definition, run, { ...scope, redactEnvironment: true });
  } catch {
    // The span then shows no input; the real resolution below reports the problem.
  }
  try {
    const inputs = resolveInputs(definition, run, scope);
    const outcome = await definition.execute(inputs, run);
    return { id, startedAt, endedAt: deps.now(), shownInputs, outcome };
  } catch (error) {
    return { id, startedAt, endedAt: deps.now(), shownInputs, error: messageOf(error) };
  }
}

function apply(executed: Executed, state: Checkpoint, index: GraphIndex): void {
  const block = state.context.graph.blocks[executed.id];
  const blockState = state.blocks[executed.id];
  const outgoing = index.outgoing.get(executed.id)!;
  const handleOf = (edge: number) => state.context.graph.edges[edge].sourceHandle ?? 'source';
  state.executed += 1;
  blockState.sequence = state.executed;

  const span: TraceSpan = {
    id: `${state.context.executionId}-${state.executed}`,
    name: block.name,
    type: block.type,
    blockId: block.id,
    startTime: isoTime(executed.startedAt),
    endTime: isoTime(executed.endedAt),
    duration: executed.endedAt - executed.startedAt,
    status: executed.error === undefined ? 'success' : 'error',
    input: executed.shownInputs,
  };

  let follow: (handle: string) => boolean;
  if (executed.error !== undefined) {
    const message = executed.error;
    span.error = message;
    blockState.error = message;
    if (outgoing.some((edge) => handleOf(edge) === 'error')) {
      blockState.status = 'done';
      blockState.output = { error: message };
      span.output = blockState.output;
      follow = (handle) => handle === 'error';
    } else {
      blockState.status = 'failed';
      follow = () => false;
      if (!state.end?.error) state.end = { at: executed.endedAt, error: `${block.name}: ${message}` };
    }
  } else {
    const outcome = executed.outcome!;
    blockState.status = 'done';
    blockState.output = outcome.output;
    span.output = outcome.output;
    const selected = outcome.selectedHandles;
    follow = selected ? (handle) => selected.includes(handle) : (handle) => handle !== 'error';
    if (outcome.usage) {
      state.cost = addModelUsage(state.cost, outcome.usage);
      span.model = outcome.usage.model;
      span.tokens = { ...outcome.usage.tokens };
      span.cost = modelCostOf(outcome.usage);
    }
    if (outcome.response && !state.end) state.end = { at: executed.endedAt, response: outcome.response };
  }
  for (const edge of outgoing) state.edges[edge] = follow(handleOf(edge)) ? 'taken' : 'pruned';
  state.spans.push(span);
}

/**
 * The run's output without a response block: the output of the block where the run ended, or, when
 * several paths ended, an object of their outputs keyed by normalized block name.
 */
function finalOutput(state: Checkpoint, index: GraphIndex): unknown {
  const { blocks, edges } = state.context.graph;
  const terminal = index.order
    .filter((id) => state.blocks[id].status === 'done')
    .filter(
      (id) =>
        !index.outgoing
          .get(id)!
          .some(
            (edge) => state.edges[edge] === 'taken' && state.blocks[edges[edge].target].status === 'done',
          ),
    )
    .sort((a, b) => (state.blocks[a].sequence ?? 0) - (state.blocks[b].sequence ?? 0));
  if (terminal.length === 0) return undefined;
  if (terminal.length === 1) return state.blocks[terminal[0]].output;
  const output: Record<string, unknown> = {};
  for (const id of terminal) output[normalizeName(blocks[id].name)] = state.blocks[id].output;
  return output;
}

function finish(state: Checkpoint, index: GraphIndex): RunResult {
  const end = state.end!;
  const { context } = state;
  const startedAtMs = Date.parse(context.startedAt);
  const durationMs = Number.isFinite(startedAtMs) ? Math.max(0, end.at - startedAtMs) : 0;
  const endedAt = isoTime(end.at);
  const failed = end.error !== undefined;
  const root: TraceSpan = {
    id: context.executionId,
    name: 'Workflow execution',
    type: 'workflow',
    startTime: context.startedAt,
    endTime: endedAt,
    duration: durationMs,
    status: failed ? 'error' : 'success',
    ...(failed ? { error: end.error } : {}),
    children: state.spans,
  };
  const result: RunResult = {
    success: !failed,
    output: failed ? undefined : end.response ? end.response.data : finalOutput(state, index),
    httpStatus: failed ? 500 : (end.response?.status ?? 200),
    responseHeaders: failed ? {} : (end.response?.headers ?? {}),
    traceSpans: [root],
    cost: state.cost,
    startedAt: context.startedAt,
    endedAt,
    durationMs,
  };
  if (failed) result.error = end.error;
  return result;
}
