/**
 * Consumer of the jobs queue: starts each queued job (or schedule fire) on the Standard state
 * machine. The jobs a batch names are read in one call. Messages that fail are reported as partial
 * batch failures, so only they come back.
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/workers';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleJobMessages } from '../../core/jobs/worker';
import { logInvocation, loggerOf } from '../http/logger';
import { jobWorkerDeps } from '../wiring/job-worker';

export async function startJobs(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const logger = loggerOf(context);
  const results = await handleJobMessages(
    jobWorkerDeps(),
    event.Records.map((record) => record.body),
  );
  const failures = event.Records.flatMap((record, index) => {
    const result = results[index];
    if (result.status === 'fulfilled') {
      logger.info('Job message handled', { messageId: record.messageId, outcome: result.value });
      return [];
    }
    logger.error('Job message failed; it will be delivered again', {
      messageId: record.messageId,
      error: result.reason as Error,
    });
    return [{ itemIdentifier: record.messageId }];
  });
  return { batchItemFailures: failures };
}

export const handler = middy(startJobs).use(logInvocation());
