// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/tasks';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ExecutionState } from '../../core/runs/types';
import { executeStep } from '../../core/runs/service';
import { logInvocation, loggerOf } from '../http/logger';
import { stepDeps } from '../wiring/step';

/** Step task of the execution state machine. A thrown error reaches Finalize through the Catch. */
export async function step(state: ExecutionState, context: Context) {
  const logger = loggerOf(context);
  logger.appendKeys({ executionId: state.executionId, workflowId: state.workflowId });
  const outcome = await executeStep(stepDeps(), state);
  logger.info('Step ended', { status: outcome.status });
  return outcome;
}

export const handler = middy(step).use(logInvocation());
