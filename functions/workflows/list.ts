import { listWorkflows } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('listWorkflows', async ({ principal, query }) => {
  const workflows = await listWorkflows(workflowDeps(), principal, query.workspaceId);
  return ok({ data: workflows.map(({ state: _state, ...summary }) => summary) });
});
