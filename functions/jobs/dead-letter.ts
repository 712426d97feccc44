/**
 * Consumer of the jobs dead-letter queue: a message lands there after its last failed delivery, so
 * its job never started; the job is failed with the reason instead of staying queued forever.
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/workers';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { failDeadLetteredJob } from '../../core/jobs/service';
import { parseJobMessage } from '../../core/jobs/worker';
import { logInvocation, loggerOf } from '../http/logger';
import { failDeps } from '../wiring/jobs';

export async function failDeadLettered(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const logger = loggerOf(context);
  const deps = failDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const message = parseJobMessage(record.body);
      const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 0;
      logger.error('Job message dead-lettered', { messageId: record.messageId, message });
      if (message.kind === 'job') await failDeadLetteredJob(deps, message.taskId, receiveCount);
    } catch (error) {
      // A body that is not a job message can never be handled; it is logged and dropped.
      if ((error as Error).name === 'ValidationError') {
        logger.error('Dead-lettered message is not a job message', { body: record.body.slice(0, 1000) });
        continue;
      }
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = middy(failDeadLettered).use(logInvocation());
