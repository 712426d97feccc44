import { jobRoutes } from '../../catalog/job-routes';
import { cancelJob, jobStatusView } from '../../core/jobs/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { cancelDeps, statusDeps } from '../wiring/jobs';

export const handler = httpRoute(jobRoutes, 'cancelJob', async ({ principal, params }) => {
  const job = await cancelJob(cancelDeps(), principal, params.taskId);
  return ok(await jobStatusView(statusDeps(), job));
});
