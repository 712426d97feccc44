import { prepareRun } from '../../core/runs/service';
import { logger } from '../http/logger';
import type { JsonResponse } from '../http/responses';
import { httpRoute } from '../http/route';
import { executionStarter, prepareDeps } from '../wiring/execution';

export const handler = httpRoute(
  'executeWorkflow',
  async ({ principal, params, body }): Promise<JsonResponse> => {
    const request = await prepareRun(prepareDeps(), principal, params.workflowId, body, {
      trigger: 'api',
      mode: 'sync',
    });
    logger.appendKeys({ executionId: request.executionId, workflowId: request.workflowId });
    const answer = await executionStarter().startSync(request);
    logger.info('Run finished', { success: answer.body.success, durationMs: answer.body.metadata.duration });
    return { statusCode: answer.httpStatus, headers: answer.headers, body: answer.body };
  },
);
