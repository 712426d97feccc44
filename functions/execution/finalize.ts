import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ExecutionState } from '../../core/runs/types';
import { finalizeRun } from '../../core/runs/service';
import { logInvocation, loggerOf } from '../http/logger';
import { finalizeDeps } from '../wiring/finalize';

/** Finalize task: writes the log entry and shapes the answer a sync caller receives. */
export async function finalize(state: ExecutionState, context: Context) {
  const logger = loggerOf(context);
  logger.appendKeys({ executionId: state.executionId, workflowId: state.workflowId });
  const answer = await finalizeRun(finalizeDeps(), state);
  logger.info('Run finalized', { success: answer.body.success, httpStatus: answer.httpStatus });
  return answer;
}

export const handler = middy(finalize).use(logInvocation());
