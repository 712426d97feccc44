/**
 * Called when an asynchronous run's execution ends FAILED, TIMED_OUT or ABORTED: such a run never
 * reached a Finalize that settles its job, so the job is failed here instead of staying
 * `processing`. A job that was settled or cancelled already is left as it is.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { failUnsettledJob } from '../../core/jobs/service';
import { logger, withInvocationLogger } from '../http/logger';
import { failDeps } from '../wiring/jobs';

export type ExecutionStatusChange = EventBridgeEvent<
  'Step Functions Execution Status Change',
  { name: string; status: string; executionArn?: string; cause?: string | null }
>;

export async function runEnded(event: ExecutionStatusChange): Promise<void> {
  const { name, status } = event.detail;
  logger.warn('Asynchronous run ended outside Finalize', { executionId: name, status });
  await failUnsettledJob(failDeps(), name, `The run ended ${status.toLowerCase().replace('_', ' ')}`);
}

export const handler = withInvocationLogger(
  middy(runEnded).use(injectLambdaContext(logger, { resetKeys: true })),
);
