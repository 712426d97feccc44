import { workflowRoutes } from '../../catalog/workflow-routes';
import { withinSyncDeadline } from '../../core/runs/deadline';
import { admitRun } from '../../core/runs/admission';
import { prepareRun } from '../../core/runs/prepare';
import type { JsonResponse } from '../http/responses';
import { httpRoute } from '../http/route';
import { executionStarter } from '../wiring/execution';
import { syncBudgetInMs } from '../wiring/sync-budget';
import { prepareDeps } from '../wiring/prepare';
import { runAdmissionDeps } from '../wiring/limits';

/** A run by hand: answered like a sync execute, logged with trigger `manual`. */
export const handler = httpRoute(
  workflowRoutes,
  'runWorkflow',
  async ({ principal, params, body, limits, logger }): Promise<JsonResponse> => {
    const deps = prepareDeps({ freshWorkflow: body.draft === true });
    return admitRun(runAdmissionDeps(), limits, {
      prepare: (usage) =>
        prepareRun(deps, principal, params.workflowId, body.input ?? {}, {
          trigger: 'manual',
          mode: 'sync',
          draft: body.draft === true,
          usage,
        }),
      start: async (request) => {
        logger.appendKeys({ executionId: request.executionId, workflowId: request.workflowId });
        const answer = await withinSyncDeadline(
          executionStarter().startSync(request),
          request.startedAt,
          syncBudgetInMs(),
        );
        return { statusCode: answer.httpStatus, headers: answer.headers, body: answer.body };
      },
    });
  },
);
