/**
 * What a block type is to the scheduler. The scheduler knows no block type by name: everything a
 * type does differently (how its config resolves, which edges it follows, whether it ends the run,
 * what it costs) comes back through these shapes, so a new type is a new module plus a registry entry.
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
  context: RunContext;
  deps: EngineDeps;
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
}

export interface BlockDefinition {
  type: string;
  /** The inputs the block runs with, from its config; also what its trace span shows. Default: the whole config resolved as values. */
  resolveInputs?(block: Block, resolve: ConfigResolver, run: BlockRun): Record<string, unknown>;
  execute(inputs: Record<string, unknown>, run: BlockRun): Promise<BlockOutcome>;
}

/** An error whose message is meant for the person who built the workflow. */
export class BlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockError';
  }
}
