import { jobRoutes } from '../../catalog/job-routes';
import { cancelJob, jobStatusView } from '../../core/jobs/service';
import { releaseRunSlot } from '../../core/limits/run-slots';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { cancelDeps, statusDeps } from '../wiring/jobs';
import { runSlotStore } from '../wiring/limits';

export const handler = httpRoute(jobRoutes, 'cancelJob', async ({ principal, params }) => {
  const job = await cancelJob(cancelDeps(), principal, params.taskId);
  // A cancelled run never reaches Finalize: its slot among the workspace's runs in progress goes back here.
  await releaseRunSlot({ slots: runSlotStore() }, { workspaceId: job.workspaceId, executionId: job.taskId });
  return ok(await jobStatusView(statusDeps(), job));
});
