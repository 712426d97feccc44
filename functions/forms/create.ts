import { formRoutes } from '../../catalog/form-routes';
import { createForm } from '../../core/forms/service';
import { applyWorkflowSchedule } from '../../core/schedules/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { formDeps } from '../wiring/forms';
import { workflowScheduleDeps } from '../wiring/schedules';
import { publicBaseUrl } from '../wiring/webhooks';

export const handler = httpRoute(formRoutes, 'createForm', async ({ principal, body, headers, event }) => {
  const form = await createForm(formDeps(), principal, body, publicBaseUrl(event, headers));
  // The form may have deployed its workflow, and a schedule fires only while it is deployed.
  await applyWorkflowSchedule(workflowScheduleDeps(), form.workflowId);
  return created({ data: form });
});
