/**
 * What a block type is to the step runner. Apart from the three that open frames of their own (`loop`,
 * `parallel`, `workflow`), the step runner knows no block type by name: everything a type does
 * differently (how its config resolves, which edges it follows, whether it ends the run, what it
 * costs, whether it waits) comes back through these shapes, so a new type is a new module plus a
 * registry entry.
 */
import type { ModelUsage } from '../cost';
import type { Block, EngineDeps, RunContext } from '../types';

export interface ConfigResolver {
  /** A string that is exactly one reference takes its value as is; other strings are interpolated; objects and arrays member by member. */
  value(value: unknown): unknown;
  text(text: string): string;
  /** References become JSON literals, for code and expressions. */
  code(code: string): string;
}

export interface BlockRun {
  block: Block;
  /** The run's context; inside a child workflow, the child's (its graph, input and workflow id). */
  context: RunContext;
  deps: EngineDeps;
  /**
   * Aborted when the run no longer needs this block: the run failed or ended, or the loop or
   * parallel it runs in failed. A block should pass it to whatever it waits on and stop soon after.
   */
  signal: AbortSignal;
}

export interface ResponseData {
  data: unknown;
  status: number;
  headers: Record<string, string>;
}

export interface BlockOutcome {
  output: unknown;
  /** Only edges with these source handles are followed; without it, every edge but `error` is. */
  selectedHandles?: string[];
  /** Ends the run with this answer. */
  response?: ResponseData;
  /** A model call to add to the run's cost and to the block's span. */
  usage?: ModelUsage;
  /** Sets workflow variables (`<variable.name>`) for the blocks that run after this one. */
  variables?: Record<string, unknown>;
  /**
   * Holds the block's output and outgoing edges back for this long. The run goes on with other
   * work; when only such waits are left, the step ends `waiting` and the state machine sleeps.
   */
  suspendForMs?: number;
}

export interface BlockDefinition {
  type: string;
  /** The inputs the block runs with, from its config; also what its trace span shows. Default: the whole config resolved as values. */
  resolveInputs?(block: Block, resolve: ConfigResolver, run: BlockRun): Record<string, unknown>;
  execute(inputs: Record<string, unknown>, run: BlockRun): Promise<BlockOutcome>;
}

/** An error whose message is meant for the person who built the workflow. */
export class BlockError extends Error {
  /**
   * Set where the run's caller, not the workflow, is at fault (a reference brought their data into
   * something the answer cannot carry): a block of the run's own workflow that fails so ends the run
   * with this status, past any error edge. Elsewhere (a child workflow's block) it fails as any other.
   */
  readonly httpStatus?: number;

  constructor(message: string, options: { httpStatus?: number } = {}) {
    super(message);
    this.name = 'BlockError';
    if (options.httpStatus !== undefined) this.httpStatus = options.httpStatus;
  }
}
