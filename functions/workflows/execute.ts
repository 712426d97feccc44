import { enqueueRun } from '../../core/jobs/service';
import { prepareRun } from '../../core/runs/service';
import { logger } from '../http/logger';
import type { JsonResponse } from '../http/responses';
import { httpRoute } from '../http/route';
import { executionStarter, prepareDeps } from '../wiring/execution';
import { enqueueDeps } from '../wiring/jobs';

export const handler = httpRoute(
  'executeWorkflow',
  async ({ principal, params, body, headers }): Promise<JsonResponse> => {
    const mode = headers['x-execution-mode']?.trim().toLowerCase() === 'async' ? 'async' : 'sync';
    const request = await prepareRun(prepareDeps(), principal, params.workflowId, body, {
      trigger: 'api',
      mode,
    });
    logger.appendKeys({ executionId: request.executionId, workflowId: request.workflowId });
    if (mode === 'async') return { statusCode: 202, body: await enqueueRun(enqueueDeps(), request) };
    const answer = await executionStarter().startSync(request);
    logger.info('Run finished', { success: answer.body.success, durationMs: answer.body.metadata.duration });
    return { statusCode: answer.httpStatus, headers: answer.headers, body: answer.body };
  },
);
