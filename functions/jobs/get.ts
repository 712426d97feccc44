import { jobRoutes } from '../../catalog/job-routes';
import { jobStatusView, loadJob } from '../../core/jobs/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { statusDeps } from '../wiring/jobs';

export const handler = httpRoute(jobRoutes, 'getJob', async ({ principal, params }) => {
  const deps = statusDeps();
  const job = await loadJob(deps, principal, params.taskId);
  return ok(await jobStatusView(deps, job));
});
