/**
 * JobStore on the `executions` table.
 *
 * | item                    | pk                   | sk          |
 * |-------------------------|----------------------|-------------|
 * | job                     | `JOB#<taskId>`       | `JOB`       |
 * | recent run durations    | `WFSTATS#<workflowId>` | `DURATIONS` |
 *
 * The job carries the run request it starts, as JSON text (`requestJson`), or, when that is larger
 * than INLINE_LIMIT_IN_BYTES (inputs can be up to 10 MB), in the blob store under
 * `executions/<taskId>/request.json` with the key in `requestBlobKey`. `ttl` is the job's expiry in
 * Unix seconds: DynamoDB's TTL removes it in AWS, and reads filter it out everywhere (TTL deletes
 * late, and dynalite has none).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Job, JobStatus, JobStore, JobUpdate, JobWithRequest } from '../../core/jobs/types';
import type { ExecutionRequest } from '../../core/runs/types';
import { dynamoDocumentClient, requireEnv } from '../aws/clients';
import {
  batchGetAll,
  DynamoTable,
  type DynamoTableWithBlobsOptions,
  EXECUTIONS_TABLE_ENV,
  INLINE_LIMIT_IN_BYTES,
  type Item,
  isConditionalCheckFailed,
  type JsonBlobStore,
  putIfAbsent,
  readPointedBlob,
  requireBlobStore,
  withoutAttributes,
} from './shared';

const jobKey = (taskId: string) => ({ pk: `JOB#${taskId}`, sk: 'JOB' });
const durationsKey = (workflowId: string) => ({ pk: `WFSTATS#${workflowId}`, sk: 'DURATIONS' });
const INTERNAL = ['requestJson', 'requestBlobKey', 'ttl'] as const;

/** How many recent durations the estimate averages (at most). */
export const recentDurationsKept = 10;

function slotOf(taskId: string): number {
  let hash = 0;
  for (let index = 0; index < taskId.length; index++) hash = (hash * 31 + taskId.charCodeAt(index)) >>> 0;
  return hash % recentDurationsKept;
}

export function requestBlobKey(taskId: string): string {
  return `executions/${taskId}/request.json`;
}

export interface DynamoJobStoreOptions extends DynamoTableWithBlobsOptions {
  now?: () => Date;
}

export class DynamoJobStore extends DynamoTable implements JobStore {
  private readonly now: () => Date;

  constructor(options: DynamoJobStoreOptions) {
    super(options);
    this.now = options.now ?? (() => new Date());
  }

  static fromEnv(options: { blobStore?: JsonBlobStore; now?: () => Date } = {}): DynamoJobStore {
    return new DynamoJobStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(EXECUTIONS_TABLE_ENV),
      ...options,
    });
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
    return item ? withoutAttributes<Job>(item, INTERNAL) : undefined;
  }

  async getJobWithRequest(taskId: string): Promise<JobWithRequest | undefined> {
    const item = await this.getItem(taskId);
    return item ? this.withRequest(item) : undefined;
  }

  /** One consistent BatchGetItem per 100 jobs (the start worker reads a queue batch's jobs at once). */
  async getJobsWithRequests(taskIds: readonly string[]): Promise<Map<string, JobWithRequest>> {
    const keys = [...new Set(taskIds)].map(jobKey);
    const items = await batchGetAll(this.client, this.tableName, keys, { ConsistentRead: true });
    const found = await Promise.all(
      items.filter((item) => !this.isExpired(item)).map((item) => this.withRequest(item)),
    );
    return new Map(found.map((entry) => [entry.job.taskId, entry]));
  }

  private async withRequest(item: Item): Promise<JobWithRequest> {
    const job = withoutAttributes<Job>(item, INTERNAL);
    if (typeof item.requestBlobKey === 'string') {
      const blobs = requireBlobStore(
        this.blobStore,
        `The run request of job ${job.taskId} is in the blob store`,
      );
      return { job, request: await readPointedBlob<ExecutionRequest>(blobs, item.requestBlobKey) };
    }
    return { job, request: JSON.parse(String(item.requestJson)) as ExecutionRequest };
  }

  async updateJob(taskId: string, from: readonly JobStatus[], update: JobUpdate): Promise<Job | undefined> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':now': Math.floor(this.now().getTime() / 1000) };
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
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: jobKey(taskId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          // An expired job is gone for its caller, so it cannot move either.
          ConditionExpression: `attribute_exists(pk) AND #status IN (${fromList}) AND #ttl > :now`,
          ExpressionAttributeNames: { ...names, '#ttl': 'ttl' },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? withoutAttributes<Job>(Attributes as Item, INTERNAL) : undefined;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  /**
   * One write, no read: the duration goes into one of `recentDurationsKept` slots picked by the
   * task id, so the slots hold a sample of the latest runs and concurrent runs never conflict.
   */
  async recordDuration(workflowId: string, taskId: string, durationInMs: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: durationsKey(workflowId),
        UpdateExpression: 'SET #slot = :duration',
        ExpressionAttributeNames: { '#slot': `d${slotOf(taskId)}` },
        ExpressionAttributeValues: { ':duration': durationInMs },
      }),
    );
  }

  async recentDurationInMs(workflowId: string): Promise<number | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: durationsKey(workflowId) }),
    );
    const recent = Object.entries(item ?? {})
      .filter(([name, value]) => /^d\d+$/.test(name) && typeof value === 'number')
      .map(([, value]) => value as number);
    if (recent.length === 0) return undefined;
    return recent.reduce((sum, value) => sum + value, 0) / recent.length;
  }

  private async getItem(taskId: string): Promise<Item | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: jobKey(taskId), ConsistentRead: true }),
    );
    if (!item || this.isExpired(item)) return undefined;
    return item as Item;
  }

  private isExpired(item: Item): boolean {
    return typeof item.ttl === 'number' && item.ttl <= Math.floor(this.now().getTime() / 1000);
  }
}
