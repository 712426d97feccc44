/**
 * The local endpoint of the AWS APIs that the bundle mode's functions call (local/emulators/aws-api-server.ts
 * and its services), driven by the service's own adapters through the real SDK clients.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOptions } from '../../../adapters/aws/client-options';
import { EventBridgeScheduleRegistry } from '../../../adapters/aws/eventbridge-schedule-registry';
import { SfnExecutionStarter } from '../../../adapters/aws/sfn-execution-starter';
import { createSesEmailSender } from '../../../adapters/email/ses-sender';
import { KmsKeyWrapper } from '../../../adapters/kms/kms-key-wrapper';
import { secretStringOf } from '../../../adapters/secrets/secret-string';
import { SecretDecryptionError } from '../../../core/environment/envelope';
import type { ExecutionAnswer, ExecutionRequest, ExecutionStarter } from '../../../core/runs/types';
import { startAwsApiServer } from '../../../local/emulators/aws-api-server';
import type { RunningService } from '../../../local/emulators/http-server';
import { createKmsApi } from '../../../local/emulators/kms-api';
import { createEventBridgeSchedulerApi } from '../../../local/emulators/eventbridge-scheduler-api';
import { createSecretsManagerApi } from '../../../local/emulators/secrets-manager-api';
import { createSesApi } from '../../../local/emulators/ses-api';
import { createSfnApi } from '../../../local/emulators/sfn-api';

const keyArn = 'arn:aws:kms:us-east-1:000000000000:key/environment';
const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:admin-api-key';
const syncArn = 'arn:aws:states:us-east-1:000000000000:stateMachine:executionSync';
const asyncArn = 'arn:aws:states:us-east-1:000000000000:stateMachine:executionAsync';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

let dir: string;
let server: RunningService;
let wakes = 0;
const started: string[] = [];
const stopped: string[] = [];

/** Stands in for the in-process state machine: what the Step Functions API hands it is recorded. */
const starter: ExecutionStarter = {
  async startSync(request) {
    return {
      httpStatus: 200,
      headers: {},
      body: { success: true, output: request.input },
    } as ExecutionAnswer;
  },
  async startAsync(request) {
    started.push(request.executionId);
  },
  async stopAsync(executionId) {
    stopped.push(executionId);
  },
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aws-api-server-test-'));
  await writeFile(join(dir, 'secrets.key'), randomBytes(32), { mode: 0o600 });
  server = await startAwsApiServer([
    createSfnApi({ starter, syncStateMachineArn: syncArn, asyncStateMachineArn: asyncArn }),
    createKmsApi({ [keyArn]: join(dir, 'secrets.key') }),
    createSecretsManagerApi({ [secretArn]: async () => 'the admin key' }),
    createEventBridgeSchedulerApi(() => {
      wakes += 1;
    }),
    createSesApi(join(dir, 'outbox')),
  ]);
});

afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the Step Functions API', () => {
  it('runs StartSyncExecution, StartExecution and StopExecution on the local machines', async () => {
    // Prepare
    const sfn = new SfnExecutionStarter({
      client: new SFNClient({ region: 'us-east-1', ...localOptions(server.endpoint) }),
      syncStateMachineArn: syncArn,
      asyncStateMachineArn: asyncArn,
    });
    const request = { executionId: 'run-1', input: { name: 'Ada' } } as unknown as ExecutionRequest;

    // Act
    const answer = await sfn.startSync(request);
    await sfn.startAsync({ ...request, executionId: 'run-2' });
    await sfn.stopAsync('run-2', 'cancelled');

    // Assess
    expect(answer).toMatchObject({ body: { output: { name: 'Ada' } } });
    expect(started).toEqual(['run-2']);
    expect(stopped).toEqual(['run-2']);
  });
});

describe('the KMS API', () => {
  it('unwraps a data key with the context it was made for, and refuses another', async () => {
    // Prepare
    const kms = new KmsKeyWrapper({
      client: new KMSClient({ region: 'us-east-1', endpoint: server.endpoint, credentials }),
      keyArn,
      contextKey: 'workspaceId',
    });

    // Act
    const key = await kms.generateDataKey('ws_1');
    const unwrapped = await kms.decryptDataKey(key.encrypted, 'ws_1');
    const refused = await kms.decryptDataKey(key.encrypted, 'ws_2').catch((error: unknown) => error);

    // Assess
    expect(Buffer.from(unwrapped)).toEqual(Buffer.from(key.plaintext));
    expect(refused).toBeInstanceOf(SecretDecryptionError);
  });
});

describe('the Secrets Manager API', () => {
  it("answers a secret's value to a client that finds the endpoint in AWS_ENDPOINT_URL_SECRETS_MANAGER", async () => {
    // Prepare
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: server.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });

    try {
      // Act
      const value = await secretStringOf(secretArn);
      const missing = await secretStringOf(`${secretArn}-gone`).catch((error: Error) => error.name);

      // Assess
      expect(value).toBe('the admin key');
      expect(missing).toBe('ResourceNotFoundException');
    } finally {
      process.env = saved;
    }
  });
});

describe('the EventBridge Scheduler API', () => {
  it('creates, then updates on conflict, and deletes schedules, waking the local schedule firer each time', async () => {
    // Prepare
    const registry = new EventBridgeScheduleRegistry({
      client: new SchedulerClient({ region: 'us-east-1', endpoint: server.endpoint, credentials }),
      groupName: 'workflows',
      roleArn: 'arn:aws:iam::000000000000:role/scheduler',
      targetArn: 'arn:aws:sqs:us-east-1:000000000000:jobs',
    });
    const schedule = {
      workflowId: 'wf_1',
      workspaceId: 'ws_1',
      cron: '*/5 * * * *',
      timezone: 'UTC',
      input: {},
      enabled: true,
      userId: 'usr_1',
      nextRunAt: null,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    const wakesBefore = wakes;

    // Act
    await registry.apply(schedule);
    await registry.apply({ ...schedule, enabled: false });
    await registry.remove('wf_1');
    await registry.remove('wf_1');

    // Assess
    expect(wakes - wakesBefore).toBe(3);
  });
});

describe('the SES API', () => {
  it('writes a raw message to the outbox', async () => {
    // Prepare
    const sender = createSesEmailSender({
      from: 'Service <service@example.com>',
      client: new SESv2Client({ region: 'us-east-1', endpoint: server.endpoint, credentials }),
    });

    // Act
    const result = await sender.send({
      to: ['ada@example.com'],
      subject: 'Run failed',
      text: 'It failed',
      html: '',
    });
    const [file] = await readdir(join(dir, 'outbox', 'email'));

    // Assess
    expect(result.outcome).toEqual({ kind: 'answered', status: 200 });
    expect(await readFile(join(dir, 'outbox', 'email', file), 'utf8')).toContain('Subject: Run failed');
  });
});
