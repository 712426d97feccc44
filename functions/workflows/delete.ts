import { workflowRoutes } from '../../catalog/workflow-routes';
import { deleteWorkflowForms } from '../../core/forms/service';
import { deleteWorkflowSchedule } from '../../core/schedules/service';
import { deleteWorkflowWebhooks } from '../../core/webhooks/service';
import { deleteWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowFormDeps } from '../wiring/forms';
import { workflowScheduleDeps } from '../wiring/schedules';
import { workflowWebhookDeps } from '../wiring/webhooks';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'deleteWorkflow', async ({ principal, params }) => {
  const deleted = await deleteWorkflow(workflowDeps(), principal, params.workflowId);
  // Its schedule stops firing, and its webhook paths and form identifiers are freed.
  await deleteWorkflowSchedule(workflowScheduleDeps(), params.workflowId);
  await deleteWorkflowWebhooks(workflowWebhookDeps(), params.workflowId);
  await deleteWorkflowForms(workflowFormDeps(), params.workflowId);
  return ok({ data: deleted });
});
