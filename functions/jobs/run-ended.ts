/**
 * Called when an asynchronous run's execution ends FAILED, TIMED_OUT or ABORTED: such a run never
 * reached a Finalize that settles its job, so the job is failed here instead of staying
 * `processing`. A job that was settled or cancelled already is left as it is.
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/workers';
import middy from '@middy/core';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { failUnsettledJob } from '../../core/jobs/service';
import { logInvocation, loggerOf } from '../http/logger';
import { failDeps } from '../wiring/jobs';

export type ExecutionStatusChange = EventBridgeEvent<
  'Step Functions Execution Status Change',
  { name: string; status: string; executionArn?: string; cause?: string | null }
>;

export async function runEnded(event: ExecutionStatusChange, context: Context): Promise<void> {
  const { name, status } = event.detail;
  loggerOf(context).warn('Asynchronous run ended outside Finalize', { executionId: name, status });
  await failUnsettledJob(failDeps(), name, `The run ended ${status.toLowerCase().replace('_', ' ')}`);
}

export const handler = middy(runEnded).use(logInvocation());
