import { deleteWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('deleteWorkflow', async ({ principal, params }) => {
  return ok({ data: await deleteWorkflow(workflowDeps(), principal, params.workflowId) });
});
