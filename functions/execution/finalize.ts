import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ExecutionState } from '../../core/runs/types';
import { finalizeRun } from '../../core/runs/service';
import { logger, withInvocationLogger } from '../http/logger';
import { finalizeDeps } from '../wiring/execution';

/** Finalize task: writes the log entry and shapes the answer a sync caller receives. */
export async function finalize(state: ExecutionState) {
  logger.appendKeys({ executionId: state.executionId, workflowId: state.workflowId });
  const answer = await finalizeRun(finalizeDeps(), state);
  logger.info('Run finalized', { success: answer.body.success, httpStatus: answer.httpStatus });
  return answer;
}

export const handler = withInvocationLogger(
  middy(finalize).use(injectLambdaContext(logger, { resetKeys: true })),
);
