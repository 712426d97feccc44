import { deleteWorkflowSchedule } from '../../core/schedules/service';
import { deleteWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowScheduleDeps } from '../wiring/schedules';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('deleteWorkflow', async ({ principal, params }) => {
  const deleted = await deleteWorkflow(workflowDeps(), principal, params.workflowId);
  await deleteWorkflowSchedule(workflowScheduleDeps(), params.workflowId);
  return ok({ data: deleted });
});
