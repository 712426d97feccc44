import { setTimeout as timer } from 'node:timers/promises';
import { inProcessWaitLimitInMs } from '../limits';
import type { EngineDeps } from '../types';
import { BlockError, type BlockDefinition } from './types';

/** `deps.sleep`, else a real timer that an abort ends early. */
export function sleepOf(deps: EngineDeps): (milliseconds: number, signal?: AbortSignal) => Promise<void> {
  return deps.sleep ?? ((milliseconds, signal) => timer(milliseconds, undefined, { signal }));
}

function durationOf(value: unknown): number {
  const duration = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0) {
    throw new BlockError(
      `Wait durationMs must be a number of milliseconds of at least 0; got ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
    );
  }
  return Math.round(duration);
}

/**
 * Pauses its path for `durationMs`. Up to a second it simply sleeps inside the step (a Wait state
 * takes whole seconds, so handing over would only make it longer); longer waits suspend: the step
 * goes on with other work and, when only waits are left, ends `waiting` so that the state machine
 * sleeps without a Lambda running.
 */
export const waitBlock: BlockDefinition = {
  type: 'wait',
  async execute(inputs, { deps, signal }) {
    const durationMs = durationOf(inputs.durationMs);
    const output = { waitDuration: durationMs };
    if (durationMs > inProcessWaitLimitInMs) return { output, suspendForMs: durationMs };
    if (durationMs > 0) await sleepOf(deps)(durationMs, signal);
    return { output };
  },
};
