/**
 * Wiring of a run's preparation (core/runs/prepare.ts): the routes that start runs. Apart from
 * ./execution.ts, so what else reads that wiring (jobs, Finalize) carries no guarded HTTP client
 * for file URLs.
 */
import type { PrepareDeps } from '../../core/runs/prepare';
import { deploymentReader } from './deployments';
import { syncBudgetInMs } from './sync-budget';
import { fileDeps } from './files';
import { accessPolicyOf } from './permissions';
import { workflowDeps, workflowRecords } from './workflows';

/**
 * A run's reads: the workflow record from the process's cache (bounded staleness, see
 * ./workflows.ts), except for a draft run (`freshWorkflow`), which runs the graph as last saved.
 */
export function prepareDeps(options: { freshWorkflow?: boolean } = {}): PrepareDeps {
  const deps = workflowDeps();
  const records = options.freshWorkflow ? deps.workflows : workflowRecords();
  return {
    identity: deps.identity,
    workflows: {
      getWorkflow: (id) => records.getWorkflow(id),
      getDeployment: deploymentReader().getDeployment,
    },
    now: deps.now,
    syncBudgetInMs: syncBudgetInMs(),
    files: fileDeps(),
    policyOf: accessPolicyOf,
  };
}
