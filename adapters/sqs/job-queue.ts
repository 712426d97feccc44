/** JobQueue on SQS: one message per job or schedule fire, its body the JSON of the message. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queues } from '../../catalog/resources';
import type { JobMessage, JobQueue } from '../../core/jobs/types';
import { requireEnv, sqsClient } from '../aws/clients';

export class SqsJobQueue implements JobQueue {
  constructor(private readonly options: { client: SQSClient; queueUrl: string }) {}

  static fromEnv(): SqsJobQueue {
    return new SqsJobQueue({ client: sqsClient(), queueUrl: requireEnv(queues.jobs.envVar) });
  }

  async send(message: JobMessage): Promise<void> {
    await this.options.client.send(
      new SendMessageCommand({ QueueUrl: this.options.queueUrl, MessageBody: JSON.stringify(message) }),
    );
  }
}
