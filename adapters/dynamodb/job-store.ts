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
import type { Job, JobStore, JobWithRequest } from '../../core/jobs/types';
import type { ExecutionRequest } from '../../core/runs/types';
import { DynamoJobWriter, internalJobAttributes, jobKey, tableOptionsFromEnv } from './job-writer';
import {
  batchGetAll,
  type Item,
  type JsonBlobStore,
  readPointedBlob,
  requireBlobStore,
  withoutAttributes,
} from './dynamo-table';

export { type DynamoJobStoreOptions, requestBlobKey } from './job-writer';

const durationsKey = (workflowId: string) => ({ pk: `WFSTATS#${workflowId}`, sk: 'DURATIONS' });
/** How many recent durations the estimate averages (at most). */
export const recentDurationsKept = 10;

function slotOf(taskId: string): number {
  let hash = 0;
  for (let index = 0; index < taskId.length; index++) hash = (hash * 31 + taskId.charCodeAt(index)) >>> 0;
  return hash % recentDurationsKept;
}

export class DynamoJobStore extends DynamoJobWriter implements JobStore {
  static override fromEnv(options: { blobStore?: JsonBlobStore; now?: () => Date } = {}): DynamoJobStore {
    return new DynamoJobStore(tableOptionsFromEnv(options));
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
    const job = withoutAttributes<Job>(item, internalJobAttributes);
    if (typeof item.requestBlobKey === 'string') {
      const blobs = requireBlobStore(
        this.blobStore,
        `The run request of job ${job.taskId} is in the blob store`,
      );
      return { job, request: await readPointedBlob<ExecutionRequest>(blobs, item.requestBlobKey) };
    }
    return { job, request: JSON.parse(String(item.requestJson)) as ExecutionRequest };
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
}
