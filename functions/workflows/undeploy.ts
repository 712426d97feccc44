import { undeployWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('undeployWorkflow', async ({ principal, params }) =>
  ok({ data: await undeployWorkflow(workflowDeps(), principal, params.workflowId) }),
);
