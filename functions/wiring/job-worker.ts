/** Wiring of the start worker (functions/jobs/start.ts): queued runs, and schedule fires made runs. */
import type { JobWorkerDeps } from '../../core/jobs/worker';
import { runRequestForFire } from '../../core/schedules/service';
import { jobRetentionInSeconds, jobStore, startDeps } from './jobs';
import { scheduleFireDeps } from './schedules';

/** The start worker's deps: a schedule fire becomes the run its schedule describes. */
export function jobWorkerDeps(): JobWorkerDeps {
  return {
    ...startDeps(),
    jobs: jobStore(),
    retentionInSeconds: jobRetentionInSeconds(),
    fireRequest: (message) => runRequestForFire(scheduleFireDeps(), message),
  };
}
