/**
 * What of the job store (./job-store.ts) accepting a run as a job needs: writing a job, reading one
 * back and moving its status. The routes that queue runs use this alone, so their bundles carry
 * none of the reads of the workers that start and settle jobs.
 */
import type { Job, JobStatus, JobStore, JobUpdate } from '../../core/jobs/types';
import type { ExecutionRequest } from '../../core/runs/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import {
  DynamoTable,
  type DynamoTableWithBlobsOptions,
  EXECUTIONS_TABLE_ENV,
  INLINE_LIMIT_IN_BYTES,
  type Item,
  type JsonBlobStore,
  putIfAbsent,
  requireBlobStore,
  withoutAttributes,
} from './dynamo-table';

export const jobKey = (taskId: string) => ({ pk: `JOB#${taskId}`, sk: 'JOB' });
export const internalJobAttributes = ['requestJson', 'requestBlobKey', 'ttl'] as const;

export function requestBlobKey(taskId: string): string {
  return `executions/${taskId}/request.json`;
}

export interface DynamoJobStoreOptions extends DynamoTableWithBlobsOptions {
  now?: () => Date;
}

export class DynamoJobWriter
  extends DynamoTable
  implements Pick<JobStore, 'createJob' | 'getJob' | 'updateJob' | 'moveJob'>
{
  protected readonly now: () => Date;

  constructor(options: DynamoJobStoreOptions) {
    super(options);
    this.now = options.now ?? (() => new Date());
  }

  static fromEnv(options: { blobStore?: JsonBlobStore; now?: () => Date } = {}): DynamoJobWriter {
    return new DynamoJobWriter(tableOptionsFromEnv(options));
  }

  async createJob(job: Job, request: ExecutionRequest): Promise<boolean> {
    const json = JSON.stringify(request);
    let requestData: { requestJson: string } | { requestBlobKey: string };
    if (Buffer.byteLength(json) <= INLINE_LIMIT_IN_BYTES) {
      requestData = { requestJson: json };
    } else {
      const blobs = requireBlobStore(this.blobStore, `The run request of job ${job.taskId} is large`);
      await blobs.putJsonText(requestBlobKey(job.taskId), json);
      requestData = { requestBlobKey: requestBlobKey(job.taskId) };
    }
    return putIfAbsent(this.client, this.tableName, {
      ...jobKey(job.taskId),
      ...job,
      ...requestData,
      ttl: job.expiresAt,
    });
  }

  async getJob(taskId: string): Promise<Job | undefined> {
    const item = await this.getItem(taskId);
    return item ? withoutAttributes<Job>(item, internalJobAttributes) : undefined;
  }

  async updateJob(taskId: string, from: readonly JobStatus[], update: JobUpdate): Promise<Job | undefined> {
    const item = await this.updateWhere(jobUpdateInput(taskId, from, update, this.now()));
    return item && withoutAttributes<Job>(item, internalJobAttributes);
  }

  /** The job item carries its run request: a move that needs no answer does not have it sent back. */
  async moveJob(taskId: string, from: readonly JobStatus[], update: JobUpdate): Promise<boolean> {
    return this.updateIf(jobUpdateInput(taskId, from, update, this.now()));
  }

  protected async getItem(taskId: string): Promise<Item | undefined> {
    const item = await this.get(jobKey(taskId));
    return item && !this.isExpired(item) ? item : undefined;
  }

  protected isExpired(item: Item): boolean {
    return typeof item.ttl === 'number' && item.ttl <= Math.floor(this.now().getTime() / 1000);
  }
}

/** The conditional update that moves a job to `update.status` from one of the `from` statuses. */
function jobUpdateInput(taskId: string, from: readonly JobStatus[], update: JobUpdate, now: Date) {
  const names: Record<string, string> = { '#status': 'status', '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':now': Math.floor(now.getTime() / 1000) };
  from.forEach((status, index) => {
    values[`:from${index}`] = status;
  });
  const sets: string[] = [];
  for (const [name, value] of Object.entries(update)) {
    if (value === undefined) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  const fromList = from.map((_, index) => `:from${index}`).join(', ');
  return {
    Key: jobKey(taskId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    // An expired job is gone for its caller, so it cannot move either.
    ConditionExpression: `attribute_exists(pk) AND #status IN (${fromList}) AND #ttl > :now`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The store's options in a deployment: the DynamoDB client and the table named by the environment. */
export function tableOptionsFromEnv(options: {
  blobStore?: JsonBlobStore;
  now?: () => Date;
}): DynamoJobStoreOptions {
  return { client: dynamoDocumentClient(), tableName: requireEnv(EXECUTIONS_TABLE_ENV), ...options };
}
