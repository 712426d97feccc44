/**
 * Limits of loops, parallels, child workflows and the size of what blocks and runs produce; a
 * deployment may override each in `EngineDeps.limits`.
 */
import type { EngineLimits } from './types';

export const defaultLimits: Readonly<EngineLimits> = {
  maxLoopIterations: 1000,
  maxParallelBranches: 100,
  parallelConcurrency: 20,
  maxWorkflowDepth: 5,
  // Lambda answers at most 6 MB; an output this size still fits with its metadata and trace.
  maxBlockOutputBytes: 5 * 1024 * 1024,
  maxRunOutputBytes: 5 * 1024 * 1024,
  maxSpanValueBytes: 64 * 1024,
};

/** The defaults with every override that is a positive integer applied. */
export function limitsOf(overrides: Partial<EngineLimits> | undefined): EngineLimits {
  const limits = { ...defaultLimits };
  for (const key of Object.keys(limits) as Array<keyof EngineLimits>) {
    const value = overrides?.[key];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) limits[key] = value;
  }
  return limits;
}

/** A `wait` this short sleeps inside the step instead of ending it: a Wait state takes whole seconds. */
export const inProcessWaitLimitInMs = 1000;
