/** Wiring of the log API: the log store, workflows (names, folders, deployments) and the cursor key. */
import { filePresigner } from './file-urls';
import { serviceSecret } from '../../adapters/secrets/service-secret';
import { secrets } from '../../catalog/resources';
import type { LogDeps } from '../../core/logs/service';
import { deploymentReader } from './deployments';
import { workflowDeps } from './workflows';
import { setting } from '../settings';
import { executionLogStore } from './execution-log';

const cursorKey = serviceSecret(secrets.logCursor);

export function logDeps(): LogDeps {
  const deps = workflowDeps();
  return {
    identity: deps.identity,
    logs: executionLogStore(),
    workflows: {
      getWorkflow: (id) => deps.workflows.getWorkflow(id),
      listWorkflows: (workspaceId) => deps.workflows.listWorkflows(workspaceId),
      getDeployment: deploymentReader().getDeployment,
    },
    cursorKey,
    now: () => new Date(),
    settleInMs: logSettleInMs(),
    presignFile: filePresigner(),
  };
}

/**
 * `LOG_SETTLE_MS` (default 5000): how far behind now ascending log reads stop. It must exceed the
 * time from an entry's `loggedAt` to its write landing (an S3 put of large data, then the item put
 * with the SDK's retries), or a poller could move past an entry still being written.
 */
export function logSettleInMs(): number {
  return setting('LOG_SETTLE_MS');
}
