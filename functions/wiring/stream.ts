/** Wiring of streamed runs: the Step worker's engine, run in this process, and Finalize's log writing. */
import type { StreamDeps } from '../../core/runs/stream';
import { finalizeDeps } from './execution';
import { stepDeps } from './step';

export function streamDeps(): StreamDeps {
  return { step: stepDeps(), finalize: finalizeDeps() };
}
