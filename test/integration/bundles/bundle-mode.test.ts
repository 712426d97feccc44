/**
 * The local service in bundle mode (`LOCAL_HANDLERS=bundles`): the Lambda artifacts under
 * dist/functions serve routes, queue workers and state machine tasks, and a build with a side file
 * left out of an asset or a variable the template does not set fails where a user would notice.
 * The artifacts are made first when the sources changed (minutes), hence the long set-up time-out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Artifacts, prepareArtifacts } from '../../../local/bundles/artifacts';
import { type LocalService, startLocalService } from '../../../local/service';
import { linkTree } from '../../../scripts/function-artifacts';
import { deployedWorkflow, finishedJob, makeClient, type TestService } from '../../support/service';

const setUpTimeoutInMs = 900_000;

let artifacts: Artifacts;
const cleanUps: Array<() => Promise<void>> = [];

async function startBundleService(given: Artifacts): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bundle-mode-test-'));
  const service: LocalService = await startLocalService({
    dataDir,
    port: 0,
    adminKey: 'test-admin-key',
    handlers: 'bundles',
    artifacts: given,
  });
  cleanUps.push(async () => {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return makeClient(service);
}

function sqsEventOf(queueArn: string, bodies: Record<string, string>): SQSEvent {
  return {
    Records: Object.entries(bodies).map(([messageId, body]) => ({
      messageId,
      receiptHandle: `receipt-${messageId}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  artifacts = await prepareArtifacts(() => undefined);
}, setUpTimeoutInMs);

afterAll(async () => {
  for (const cleanUp of cleanUps.splice(0).reverse()) await cleanUp();
});

describe('the local service serving the Lambda bundles', () => {
  let client: TestService;

  beforeAll(async () => {
    client = await startBundleService(artifacts);
  }, setUpTimeoutInMs);

  it('answers a sync run through the execute bundle, Step Functions and the Step and Finalize bundles', async () => {
    // Prepare
    const tenant = await client.newTenant('bundles');
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.output).toEqual({ shouted: 'ADA' });
  });

  it('streams a run through awslambda.streamifyResponse as server-sent events', async () => {
    // Prepare
    const tenant = await client.newTenant('streams');
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const response = await fetch(`${client.url}/api/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'grace', stream: true }),
    });
    const text = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toContain('GRACE');
  });

  it('runs an async job: the jobs queue, the start worker bundle and the Standard machine', async () => {
    // Prepare
    const tenant = await client.newTenant('jobs');
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const started = await fetch(`${client.url}/api/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: {
        'x-api-key': tenant.apiKey,
        'content-type': 'application/json',
        'x-execution-mode': 'async',
      },
      body: JSON.stringify({ name: 'lin' }),
    });
    const { taskId } = (await started.json()) as { taskId: string };
    const finished = await finishedJob(tenant, taskId, 60_000);

    // Assess
    expect(started.status).toBe(202);
    expect(finished.body.status).toBe('completed');
  });

  it('reports the failing record of an SQS batch in batchItemFailures', async () => {
    // Prepare
    const worker = client.service.bundles?.functions.get('jobsStart');
    const event = sqsEventOf('arn:aws:sqs:us-east-1:000000000000:jobs', {
      broken: 'not a job message',
      gone: JSON.stringify({ kind: 'job', taskId: 'task-that-was-never-queued' }),
    });

    // Act
    const answer = await worker?.invoke(event);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'broken' }] });
  });
});

describe('a deliberately broken build in bundle mode', () => {
  let client: TestService;

  beforeAll(async () => {
    // The same artifacts, hard linked, but the execute route's side file left out and one route's
    // template without the variable naming the entities table.
    const dir = await mkdtemp(join(tmpdir(), 'broken-artifacts-'));
    cleanUps.push(() => rm(dir, { recursive: true, force: true }));
    for (const id of Object.keys(artifacts.manifest.functions))
      await linkTree(join(artifacts.dir, id), join(dir, id));
    await rm(join(dir, 'executeWorkflow', 'stream-run.js'));
    const functions = structuredClone(artifacts.manifest.functions);
    delete functions.getWorkflow.environment.ENTITIES_TABLE;
    client = await startBundleService({ ...artifacts, dir, manifest: { ...artifacts.manifest, functions } });
  }, setUpTimeoutInMs);

  it('fails a streamed run when the side file it loads is not in the asset, and still answers sync runs', async () => {
    // Prepare
    const tenant = await client.newTenant('broken-asset');
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const sync = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const streamed = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, {
      name: 'ada',
      stream: true,
    });

    // Assess
    expect(sync.status).toBe(200);
    expect(streamed.status).toBe(500);
  });

  it('fails the route whose template does not set a variable it needs', async () => {
    // Prepare
    const tenant = await client.newTenant('broken-environment');
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const read = await tenant.call('GET', `/api/workflows/${workflowId}`);
    const listed = await tenant.call('GET', `/api/workflows?workspaceId=${tenant.workspaceId}`);

    // Assess
    expect(read.status).toBe(500);
    expect(listed.status).toBe(200);
  });
});
