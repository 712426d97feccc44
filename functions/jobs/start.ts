/**
 * Consumer of the jobs queue: starts each queued job (or schedule fire) on the Standard state
 * machine. Messages that fail are reported as partial batch failures, so only they come back.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleJobMessage, parseJobMessage } from '../../core/jobs/worker';
import { logger, withInvocationLogger } from '../http/logger';
import { jobWorkerDeps } from '../wiring/job-worker';

export async function startJobs(event: SQSEvent): Promise<SQSBatchResponse> {
  const deps = jobWorkerDeps();
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const outcome = await handleJobMessage(deps, parseJobMessage(record.body));
        logger.info('Job message handled', { messageId: record.messageId, outcome });
        return undefined;
      } catch (error) {
        logger.error('Job message failed; it will be delivered again', {
          messageId: record.messageId,
          error: error as Error,
        });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
}

export const handler = withInvocationLogger(
  middy(startJobs).use(injectLambdaContext(logger, { resetKeys: true })),
);
