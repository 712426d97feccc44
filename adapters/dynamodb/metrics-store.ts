/**
 * The run counters in DynamoDB: one item per workspace and hour (`WS#<workspaceId>`, the hour's ISO
 * start), added to by one UpdateItem per run (ADD, so concurrent runs never lose a count and nothing
 * is read first). Durations go to a histogram bin attribute each (`d<bin>`); runs and errors per
 * workflow to `r#<workflowId>` and `e#<workflowId>`, for at most `maxWorkflowsPerHour` workflows
 * (the set `wf` names them): past it a second update counts the run under `otherRuns` instead.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hourOf } from '../../core/metrics/buckets';
import { binOf, type DurationHistogram } from '../../core/metrics/histogram';
import {
  type HourCounters,
  maxWorkflowsPerHour,
  type MetricsStore,
  type RunOutcome,
  type WorkflowCounts,
} from '../../core/metrics/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import { DynamoTable, type Item, METRICS_TABLE_ENV, queryAll } from './dynamo-table';

/** How long an hour's counters stay: over a year, so a dashboard can compare with the same month last year. */
export const metricsRetentionInDays = 400;

export interface MetricsStoreOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
}

const workspaceKey = (workspaceId: string) => `WS#${workspaceId}`;

export class DynamoMetricsStore extends DynamoTable implements MetricsStore {
  private readonly now: () => Date;

  constructor(options: MetricsStoreOptions) {
    super(options);
    this.now = options.now ?? (() => new Date());
  }

  /** The store on the shared document client, the table named by `METRICS_TABLE`. */
  static fromEnv(): DynamoMetricsStore {
    return new DynamoMetricsStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(METRICS_TABLE_ENV),
    });
  }

  async recordRun(run: RunOutcome): Promise<void> {
    const hour = hourOf(run.endedAt);
    const errors = run.failed ? 1 : 0;
    const totals = {
      Key: { pk: workspaceKey(run.workspaceId), sk: hour },
      names: { '#ttl': 'ttl', '#bin': `d${binOf(run.durationInMs)}` },
      values: {
        ':one': 1,
        ':errors': errors,
        ':duration': run.durationInMs,
        ':cost': run.costInUsd,
        ':ttl': Math.floor(Date.parse(hour) / 1000) + metricsRetentionInDays * 86_400,
      },
      adds: 'runs :one, errors :errors, durationMs :duration, costUsd :cost, #bin :one',
    };
    const counted = await this.updateIf({
      Key: totals.Key,
      UpdateExpression: `SET #ttl = :ttl ADD ${totals.adds}, wf :workflows, #runs :one${run.failed ? ', #errors :one' : ''}`,
      ConditionExpression:
        'attribute_not_exists(wf) OR contains(wf, :workflowId) OR size(wf) < :maxWorkflows',
      ExpressionAttributeNames: {
        ...totals.names,
        '#runs': `r#${run.workflowId}`,
        ...(run.failed ? { '#errors': `e#${run.workflowId}` } : {}),
      },
      ExpressionAttributeValues: {
        ...totals.values,
        ':workflows': new Set([run.workflowId]),
        ':workflowId': run.workflowId,
        ':maxWorkflows': maxWorkflowsPerHour,
      },
    });
    if (counted) return;
    // The hour counts as many workflows one by one as it may: this run counts in the totals only.
    await this.updateIf({
      Key: totals.Key,
      UpdateExpression: `SET #ttl = :ttl ADD ${totals.adds}, otherRuns :one, otherErrors :errors`,
      ExpressionAttributeNames: totals.names,
      ExpressionAttributeValues: totals.values,
    });
  }

  async readHours(workspaceId: string, fromHour: string, toHour: string): Promise<HourCounters[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': workspaceKey(workspaceId), ':from': fromHour, ':to': toHour },
    });
    const nowInSeconds = this.now().getTime() / 1000;
    // BETWEEN includes `toHour`, which the range leaves out; DynamoDB removes expired items late.
    return items
      .filter((item) => item.sk !== toHour && !(typeof item.ttl === 'number' && item.ttl < nowInSeconds))
      .map(countersOf);
  }
}

function countersOf(item: Item): HourCounters {
  const durations: DurationHistogram = {};
  const workflows: Record<string, WorkflowCounts> = {};
  for (const [name, value] of Object.entries(item)) {
    if (typeof value !== 'number') continue;
    if (/^d\d+$/.test(name)) durations[Number(name.slice(1))] = value;
    else if (name.startsWith('r#')) countsOf(workflows, name.slice(2)).runs = value;
    else if (name.startsWith('e#')) countsOf(workflows, name.slice(2)).errors = value;
  }
  return {
    hour: item.sk as string,
    runs: numberOf(item.runs),
    errors: numberOf(item.errors),
    totalDurationInMs: numberOf(item.durationMs),
    costInUsd: numberOf(item.costUsd),
    durations,
    workflows,
    otherWorkflows: { runs: numberOf(item.otherRuns), errors: numberOf(item.otherErrors) },
  };
}

function countsOf(workflows: Record<string, WorkflowCounts>, workflowId: string): WorkflowCounts {
  workflows[workflowId] ??= { runs: 0, errors: 0 };
  return workflows[workflowId];
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
