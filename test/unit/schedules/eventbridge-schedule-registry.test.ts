import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  EventBridgeScheduleRegistry,
  scheduleNameOf,
} from '../../../adapters/aws/eventbridge-schedule-registry';
import { ValidationError } from '../../../core/errors';
import type { Schedule } from '../../../core/schedules/types';

const client = new SchedulerClient({
  region: 'eu-central-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const scheduler = mockClient(client);

const QUEUE_ARN = 'arn:aws:sqs:eu-central-1:123456789012:jobs';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/scheduler';

const registry = new EventBridgeScheduleRegistry({
  client,
  groupName: 'workflows',
  roleArn: ROLE_ARN,
  targetArn: QUEUE_ARN,
  now: () => new Date('2025-06-01T10:03:00.000Z'),
});

const aSchedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  workflowId: 'wf_abc',
  workspaceId: 'ws_1',
  cron: '30 2 * * 1-5',
  timezone: 'Europe/Berlin',
  input: { topic: 'news' },
  enabled: true,
  userId: 'usr_1',
  nextRunAt: '2025-06-02T00:30:00.000Z',
  createdAt: '2025-06-01T10:00:00.000Z',
  updatedAt: '2025-06-01T10:00:00.000Z',
  ...overrides,
});

const serviceError = <T>(Type: new (options: never) => T, message: string): T =>
  new Type({ message, $metadata: {} } as never);

describe('EventBridgeScheduleRegistry', () => {
  afterEach(() => {
    scheduler.reset();
    vi.restoreAllMocks();
  });

  it('creates one schedule per workflow that sends the fire message to the jobs queue', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    // Act
    await registry.apply(aSchedule());

    // Assess
    const calls = scheduler.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toEqual({
      Name: 'wf_abc',
      GroupName: 'workflows',
      Description: 'Runs workflow wf_abc',
      ScheduleExpression: 'cron(30 2 ? * 2-6 *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: QUEUE_ARN,
        RoleArn: ROLE_ARN,
        Input: '{"kind":"schedule","workflowId":"wf_abc","scheduledTime":"<aws.scheduler.scheduled-time>"}',
      },
    });
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it('updates the schedule when it exists already', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).rejects(serviceError(ConflictException, 'exists'));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    // Act
    await registry.apply(aSchedule({ enabled: false }));

    // Assess
    const updates = scheduler.commandCalls(UpdateScheduleCommand);
    expect(updates).toHaveLength(1);
    expect(updates[0].args[0].input).toMatchObject({
      Name: 'wf_abc',
      GroupName: 'workflows',
      State: 'DISABLED',
    });
  });

  it('writes a rate with a start on its next fire, so AWS fires on the same minutes', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    // Act
    await registry.apply(aSchedule({ cron: undefined, rateMinutes: 5, timezone: 'UTC' }));

    // Assess
    expect(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      ScheduleExpressionTimezone: 'UTC',
      StartDate: new Date('2025-06-01T10:05:00.000Z'),
    });
  });

  it('answers an expression EventBridge refuses as a 400 naming cron', async () => {
    // Prepare
    scheduler
      .on(CreateScheduleCommand)
      .rejects(serviceError(ValidationException, 'Invalid Schedule Expression'));

    // Act
    const attempt = registry.apply(aSchedule());

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ details: [{ path: 'cron' }] });
  });

  it('passes other failures on as they are', async () => {
    // Prepare
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    scheduler.on(CreateScheduleCommand).rejects(throttled);

    // Act
    const attempt = registry.apply(aSchedule());

    // Assess
    await expect(attempt).rejects.toThrow('Rate exceeded');
  });

  it('deletes the workflow schedule from the group', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).resolves({});

    // Act
    await registry.remove('wf_abc');

    // Assess
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0].args[0].input).toEqual({
      Name: 'wf_abc',
      GroupName: 'workflows',
    });
  });

  it('takes a schedule that is not there as removed', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).rejects(serviceError(ResourceNotFoundException, 'not found'));

    // Act
    const attempt = registry.remove('wf_abc');

    // Assess
    await expect(attempt).resolves.toBeUndefined();
  });
});

describe('scheduleNameOf', () => {
  it('names a schedule after its workflow id', () => {
    // Act
    const name = scheduleNameOf('wf_8k2mabc');

    // Assess
    expect(name).toBe('wf_8k2mabc');
  });

  it('hashes an id that is not a valid schedule name into one', () => {
    // Act
    const name = scheduleNameOf(`wf/${'x'.repeat(80)}`);

    // Assess
    expect(name).toMatch(/^workflow-[0-9a-f]{40}$/);
  });
});
