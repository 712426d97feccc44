import type { WorkflowGraph } from '../../core/engine/types';
import { createWorkflow } from '../../core/workflows/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute('createWorkflow', async ({ principal, body }) =>
  created({
    data: await createWorkflow(workflowDeps(), principal, { ...body, state: body.state as WorkflowGraph }),
  }),
);
