/** The job workers that settle what Finalize could not: dead-lettered messages and runs that broke. */
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { DynamoJobStore } from '../../../adapters/dynamodb/job-store';
import { SqsJobQueue } from '../../../adapters/sqs/job-queue';
import { fireExecutionId } from '../../../core/schedules/service';
import type { Job } from '../../../core/jobs/types';
import { logIdFor } from '../../../core/runs/log';
import { handler as deadLetterHandler } from '../../../functions/jobs/dead-letter';
import { handler as runEndedHandler } from '../../../functions/jobs/run-ended';
import { handler as startHandler } from '../../../functions/jobs/start';
import { settledRunReader } from '../../../functions/wiring/jobs';
import { localLambdaContext } from '../../../local/lambda-context';
import { deployedWorkflow, useLocalService } from '../../support/service';

const service = useLocalService();

let counter = 0;
async function storedJob(status: Job['status']): Promise<Job> {
  counter += 1;
  const job: Job = {
    taskId: `worker-task-${counter}-${Date.now()}`,
    workspaceId: 'ws-workers',
    workflowId: 'wf-workers',
    userId: 'user-workers',
    status,
    createdAt: new Date().toISOString(),
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
  };
  await DynamoJobStore.fromEnv().createJob(job, {
    executionId: job.taskId,
    workflowId: job.workflowId,
    workspaceId: job.workspaceId,
    userId: job.userId,
    deploymentVersion: 1,
    trigger: 'api',
    input: {},
    startedAt: job.createdAt,
    mode: 'async',
  });
  return job;
}

function sqsEvent(bodies: string[], receiveCount = '5') {
  return {
    Records: bodies.map((body, index) => ({
      messageId: `message-${index}`,
      receiptHandle: `handle-${index}`,
      body,
      attributes: {
        ApproximateReceiveCount: receiveCount,
        SentTimestamp: '0',
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:jobs-dlq',
      awsRegion: 'us-east-1',
    })),
  };
}

const context = (name: string): Context => localLambdaContext(name, 30);

describe('the jobs dead-letter worker', () => {
  it('fails a job that never started, naming how often it was tried, and drops a foreign body', async () => {
    // Prepare
    const job = await storedJob('queued');

    // Act
    const response = await deadLetterHandler(
      sqsEvent([JSON.stringify({ kind: 'job', taskId: job.taskId }), 'not a job message']),
      context('jobsDeadLetter'),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await DynamoJobStore.fromEnv().getJob(job.taskId)).toMatchObject({
      status: 'failed',
      error: 'The run could not be started after 5 attempts',
    });
  });
});

describe('the run-ended worker', () => {
  it('fails a processing job whose run ended outside Finalize, and leaves a settled one alone', async () => {
    // Prepare
    const broken = await storedJob('processing');
    const settled = await storedJob('completed');
    const event = (name: string) => ({
      version: '0',
      id: 'event-1',
      'detail-type': 'Step Functions Execution Status Change' as const,
      source: 'aws.states',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: { name, status: 'TIMED_OUT' },
    });

    // Act
    await runEndedHandler(event(broken.taskId), context('jobsRunEnded'));
    await runEndedHandler(event(settled.taskId), context('jobsRunEnded'));

    // Assess
    expect(await DynamoJobStore.fromEnv().getJob(broken.taskId)).toMatchObject({
      status: 'failed',
      error: 'The run ended timed out',
    });
    expect((await DynamoJobStore.fromEnv().getJob(settled.taskId))?.status).toBe('completed');
  });
});

describe('a job whose run wrote its log entry', () => {
  it('is settled by the entry: the run-ended and dead-letter workers leave it, the status shows it', async () => {
    // Prepare: a job stored processing whose Finalize wrote the run's log entry
    const job = await storedJob('processing');
    const loggedAt = new Date().toISOString();
    await DynamoExecutionLogStore.fromEnv().putLogEntry({
      id: logIdFor(job.taskId),
      workspaceId: job.workspaceId,
      workflowId: job.workflowId,
      executionId: job.taskId,
      level: 'error',
      trigger: 'api',
      startedAt: job.createdAt,
      endedAt: loggedAt,
      loggedAt,
      totalDurationMs: 5,
      cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
      files: null,
      deploymentVersion: 1,
      models: [],
      executionData: { traceSpans: [], finalOutput: undefined, error: 'The run failed: boom' },
    });

    // Act
    await runEndedHandler(
      {
        version: '0',
        id: 'event-2',
        'detail-type': 'Step Functions Execution Status Change',
        source: 'aws.states',
        account: '000000000000',
        time: loggedAt,
        region: 'us-east-1',
        resources: [],
        detail: { name: job.taskId, status: 'FAILED' },
      },
      context('jobsRunEnded'),
    );
    await deadLetterHandler(
      sqsEvent([JSON.stringify({ kind: 'job', taskId: job.taskId })]),
      context('jobsDeadLetter'),
    );

    // Assess: the job item is as it was, and reads as the entry settled it
    expect((await DynamoJobStore.fromEnv().getJob(job.taskId))?.status).toBe('processing');
    expect(await settledRunReader()(job.taskId)).toEqual({
      success: false,
      startedAt: job.createdAt,
      endedAt: loggedAt,
      output: undefined,
      error: 'The run failed: boom',
    });
  });
});

describe('the jobs start worker', () => {
  it('reports only the messages that failed, so only they come back', async () => {
    // Prepare
    const job = await storedJob('cancelled');

    // Act
    const response = await startHandler(
      sqsEvent([JSON.stringify({ kind: 'job', taskId: job.taskId }), '{"kind":"unknown"}'], '1'),
      context('jobsStart'),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'message-1' }]);
    expect((await DynamoJobStore.fromEnv().getJob(job.taskId))?.status).toBe('cancelled');
  });
});

describe('a schedule fire on the jobs queue', () => {
  it('runs the deployed workflow once, as the schedule says, logged with trigger schedule', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduled');
    const workflowId = await deployedWorkflow(tenant);
    const put = await tenant.call('PUT', `/api/workflows/${workflowId}/schedule`, {
      cron: '0 9 * * *',
      timezone: 'Europe/Berlin',
      input: { name: 'ada' },
    });
    const scheduledTime = '2026-11-23T08:00:00.000Z';
    const fire = JSON.stringify({ kind: 'schedule', workflowId, scheduledTime });
    const queue = new SqsJobQueue({ client: sqsClient(), queueUrl: process.env.JOBS_QUEUE_URL as string });

    // Act: EventBridge delivers at least once; here twice
    await queue.send(JSON.parse(fire));
    await queue.send(JSON.parse(fire));
    const taskId = fireExecutionId(workflowId, scheduledTime);
    const job = await vi.waitFor(
      async () => {
        const answer = await tenant.call('GET', `/api/jobs/${taskId}`);
        expect(answer.body.status).toBe('completed');
        return answer;
      },
      { timeout: 10_000, interval: 50 },
    );

    // Assess
    expect(put.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'completed', output: { shouted: 'ADA' } });
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(taskId);
    expect(entry?.trigger).toBe('schedule');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await tenant.call('GET', `/api/jobs/${taskId}`)).body.status).toBe('completed');
  });
});
