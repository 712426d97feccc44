import { deployWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('deployWorkflow', async ({ principal, params }) =>
  ok({ data: await deployWorkflow(workflowDeps(), principal, params.workflowId) }),
);
