/** JobQueue on SQS: one message per job or schedule fire, its body the JSON of the message. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { queues } from '../../catalog/resources';
import type { JobMessage, JobQueue } from '../../core/jobs/types';
import { requireEnv } from '../aws/require-env';
import { sqsClient } from '../aws/sqs-client';
import { sendMessage } from './message-sender';

export class SqsJobQueue implements JobQueue {
  constructor(private readonly options: { client: SQSClient; queueUrl: string }) {}

  static fromEnv(): SqsJobQueue {
    return new SqsJobQueue({ client: sqsClient(), queueUrl: requireEnv(queues.jobs.envVar) });
  }

  /** Through the process's sender of this queue: the jobs accepted together go in one call. */
  async send(message: JobMessage): Promise<void> {
    await sendMessage(this.options.client, this.options.queueUrl, JSON.stringify(message));
  }
}
