// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/tasks';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ExecutionState } from '../../core/runs/types';
import { answerForMachine, type FinalizeOutput } from '../../core/runs/by-reference';
import { finalizeRun } from '../../core/runs/service';
import { logInvocation, loggerOf } from '../http/logger';
import { finalizeDeps } from '../wiring/finalize';

/**
 * Finalize task: writes the log entry and shapes the answer a sync caller receives, handed back by
 * reference when it is too large for the state machine's output.
 */
export async function finalize(state: ExecutionState, context: Context): Promise<FinalizeOutput> {
  const logger = loggerOf(context);
  logger.appendKeys({ executionId: state.executionId, workflowId: state.workflowId });
  const deps = finalizeDeps();
  const answer = await finalizeRun(deps, state);
  logger.info('Run finalized', { success: answer.body.success, httpStatus: answer.httpStatus });
  return answerForMachine(deps.checkpoints, state, answer);
}

export const handler = middy(finalize).use(logInvocation());
