import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  NotFoundError,
  UsageLimitExceededError,
  ValidationError,
} from '../../../core/errors';
import {
  applyWorkflowSchedule,
  deleteSchedule,
  deleteWorkflowSchedule,
  type FireDeps,
  fireExecutionId,
  getSchedule,
  putSchedule,
  runRequestForFire,
  type ScheduleDeps,
  withdrawWorkflowSchedule,
} from '../../../core/schedules/service';
import {
  graphWithInput,
  Memberships,
  MemoryScheduleStore,
  MemoryWorkflows,
  principal,
  RecordingRegistry,
} from './fakes';

const NOW = new Date('2025-06-01T10:00:30.000Z');

function fixture() {
  const schedules = new MemoryScheduleStore();
  const workflows = new MemoryWorkflows();
  const registry = new RecordingRegistry();
  const members = new Memberships().set('ws_1', 'usr_writer', 'write').set('ws_1', 'usr_reader', 'read');
  workflows.add({ id: 'wf_draft', workspaceId: 'ws_1' });
  workflows.addDeployed('wf_live', 'ws_1');
  const deps: ScheduleDeps = {
    identity: members.store,
    workflows,
    schedules,
    registry,
    now: () => NOW,
  };
  const fireDeps: FireDeps = {
    identity: members.store,
    workflows,
    schedules,
    usageOwnerOf: async (userId) => `user#${userId}`,
    now: () => NOW,
  };
  return { deps, fireDeps, schedules, workflows, registry, members };
}

const writer = principal('usr_writer');

describe('putSchedule', () => {
  it('stores the schedule in UTC with its next fire and answers it without internals', async () => {
    // Prepare
    const { deps, schedules } = fixture();

    // Act
    const view = await putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * * *' });

    // Assess
    expect(view).toEqual({
      workflowId: 'wf_draft',
      cron: '0 12 * * *',
      timezone: 'UTC',
      input: {},
      enabled: true,
      nextRunAt: '2025-06-01T12:00:00.000Z',
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    expect(await schedules.getSchedule('wf_draft')).toMatchObject({
      workspaceId: 'ws_1',
      userId: 'usr_writer',
      nextRunAt: '2025-06-01T12:00:00.000Z',
    });
  });

  it('computes the next fire in the given time zone', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const view = await putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * * *', timezone: 'asia/tokyo' });

    // Assess
    expect(view.timezone).toBe('Asia/Tokyo');
    expect(view.nextRunAt).toBe('2025-06-02T03:00:00.000Z');
  });

  it('answers nextRunAt null for a disabled schedule', async () => {
    // Prepare
    const { deps, schedules } = fixture();

    // Act
    const view = await putSchedule(deps, writer, 'wf_draft', { rateMinutes: 5, enabled: false });

    // Assess
    expect(view.nextRunAt).toBeNull();
    expect((await schedules.getSchedule('wf_draft'))?.nextRunAt).toBeNull();
  });

  it('applies the schedule to the registry only when the workflow is deployed', async () => {
    // Prepare
    const { deps, registry } = fixture();

    // Act
    await putSchedule(deps, writer, 'wf_draft', { rateMinutes: 5 });
    await putSchedule(deps, writer, 'wf_live', { rateMinutes: 5 });

    // Assess
    expect(
      registry.calls.map(([kind, value]) => [kind, typeof value === 'string' ? value : value.workflowId]),
    ).toEqual([['apply', 'wf_live']]);
  });

  it('keeps createdAt and lastRunAt of the schedule it replaces, and drops its lastError', async () => {
    // Prepare
    const { deps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_draft', { rateMinutes: 5 });
    await schedules.recordFire('wf_draft', { scheduledTime: '2025-06-01T10:05:00.000Z', error: 'bad input' });
    const later = new Date('2025-06-02T00:00:00.000Z');

    // Act
    const view = await putSchedule({ ...deps, now: () => later }, writer, 'wf_draft', { cron: '0 * * * *' });

    // Assess
    expect(view).toMatchObject({
      createdAt: NOW.toISOString(),
      updatedAt: later.toISOString(),
      lastRunAt: '2025-06-01T10:05:00.000Z',
    });
    expect(view.lastError).toBeUndefined();
    expect(view.rateMinutes).toBeUndefined();
  });

  it('keeps the schedule it had when the registry refuses the new one', async () => {
    // Prepare
    const { deps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { rateMinutes: 5 });
    const refusing = {
      apply: async () => {
        throw new ValidationError('EventBridge Scheduler refused the schedule');
      },
      remove: async () => undefined,
    };

    // Act
    const attempt = putSchedule({ ...deps, registry: refusing }, writer, 'wf_live', { rateMinutes: 10 });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    expect((await schedules.getSchedule('wf_live'))?.rateMinutes).toBe(5);
  });

  it('stores nothing when the registry refuses the first schedule of a workflow', async () => {
    // Prepare
    const { deps, schedules } = fixture();
    const refusing = {
      apply: async () => {
        throw new ValidationError('EventBridge Scheduler refused the schedule');
      },
      remove: async () => undefined,
    };

    // Act
    const attempt = putSchedule({ ...deps, registry: refusing }, writer, 'wf_live', { rateMinutes: 10 });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    expect(await schedules.getSchedule('wf_live')).toBeUndefined();
  });

  it('refuses an unknown time zone with a 400 naming timezone', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * * *', timezone: 'Moon/Base' });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ details: [{ path: 'timezone' }] });
  });

  it('refuses a cron that does not parse with a 400 naming cron', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * *' });

    // Assess
    await expect(attempt).rejects.toMatchObject({ statusCode: 400, details: [{ path: 'cron' }] });
  });

  it('refuses both or neither of cron and rateMinutes', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const both = putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * * *', rateMinutes: 5 });
    const neither = putSchedule(deps, writer, 'wf_draft', {});

    // Assess
    await expect(both).rejects.toBeInstanceOf(ValidationError);
    await expect(neither).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses an input larger than 64 KB with a 400 naming input', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = putSchedule(deps, writer, 'wf_draft', {
      rateMinutes: 5,
      input: { text: 'x'.repeat(65 * 1024) },
    });

    // Assess
    await expect(attempt).rejects.toMatchObject({ details: [{ path: 'input' }] });
  });

  it('needs write permission', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = putSchedule(deps, principal('usr_reader'), 'wf_draft', { rateMinutes: 5 });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('answers 404 to somebody who is not a member of the workspace', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = putSchedule(deps, principal('usr_stranger'), 'wf_draft', { rateMinutes: 5 });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('getSchedule', () => {
  it('answers the schedule to a reader, with the next fire from now', async () => {
    // Prepare
    const { deps } = fixture();
    await putSchedule(deps, writer, 'wf_draft', { rateMinutes: 10 });
    const later = new Date('2025-06-01T11:07:00.000Z');

    // Act
    const view = await getSchedule({ ...deps, now: () => later }, principal('usr_reader'), 'wf_draft');

    // Assess
    expect(view.nextRunAt).toBe('2025-06-01T11:10:00.000Z');
  });

  it('answers 404 when the workflow has no schedule', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = getSchedule(deps, writer, 'wf_draft');

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('deleteSchedule', () => {
  it('takes the schedule out of the registry, then out of the store', async () => {
    // Prepare
    const { deps, registry, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { rateMinutes: 5 });

    // Act
    const answer = await deleteSchedule(deps, writer, 'wf_live');

    // Assess
    expect(answer).toEqual({ deleted: true });
    expect(registry.calls.at(-1)).toEqual(['remove', 'wf_live']);
    expect(await schedules.getSchedule('wf_live')).toBeUndefined();
  });

  it('answers 404 when there is no schedule', async () => {
    // Prepare
    const { deps } = fixture();

    // Act
    const attempt = deleteSchedule(deps, writer, 'wf_live');

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('keeping the registry in step with deployment', () => {
  it('applies a stored schedule on deploy and removes it on undeploy, keeping it stored', async () => {
    // Prepare
    const { deps, registry, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_draft', { rateMinutes: 5 });

    // Act
    await applyWorkflowSchedule(deps, 'wf_draft');
    await withdrawWorkflowSchedule(deps, 'wf_draft');

    // Assess
    expect(registry.calls.map(([kind]) => kind)).toEqual(['apply', 'remove']);
    expect(await schedules.getSchedule('wf_draft')).toBeDefined();
  });

  it('leaves the registry alone for a workflow without a schedule', async () => {
    // Prepare
    const { deps, registry } = fixture();

    // Act
    await applyWorkflowSchedule(deps, 'wf_live');
    await withdrawWorkflowSchedule(deps, 'wf_live');
    await deleteWorkflowSchedule(deps, 'wf_live');

    // Assess
    expect(registry.calls).toEqual([]);
  });

  it('forgets the schedule of a deleted workflow', async () => {
    // Prepare
    const { deps, registry, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { rateMinutes: 5 });

    // Act
    await deleteWorkflowSchedule(deps, 'wf_live');

    // Assess
    expect(registry.calls.at(-1)).toEqual(['remove', 'wf_live']);
    expect(await schedules.getSchedule('wf_live')).toBeUndefined();
  });
});

describe('fireExecutionId', () => {
  it('is the same for one fire however its time is written', () => {
    // Act
    const fromEventBridge = fireExecutionId('wf_live', '2025-06-01T12:00:00Z');
    const fromLocal = fireExecutionId('wf_live', '2025-06-01T12:00:00.000Z');

    // Assess
    expect(fromEventBridge).toBe(fromLocal);
    expect(fromLocal).toMatch(/^sched_[0-9a-f]{32}$/);
  });

  it('differs between fires and between workflows', () => {
    // Act
    const ids = new Set([
      fireExecutionId('wf_live', '2025-06-01T12:00:00Z'),
      fireExecutionId('wf_live', '2025-06-01T12:01:00Z'),
      fireExecutionId('wf_other', '2025-06-01T12:00:00Z'),
    ]);

    // Assess
    expect(ids.size).toBe(3);
  });
});

describe('runRequestForFire', () => {
  const fire = { workflowId: 'wf_live', scheduledTime: '2025-06-01T12:00:00Z' };

  it('answers an async run with trigger schedule, as the user who put it, with the checked input', async () => {
    // Prepare
    const { deps, fireDeps } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', input: { topic: 'news' } });

    // Act
    const request = await runRequestForFire(fireDeps, fire);

    // Assess
    expect(request).toEqual({
      executionId: fireExecutionId('wf_live', '2025-06-01T12:00:00.000Z'),
      workflowId: 'wf_live',
      workspaceId: 'ws_1',
      userId: 'usr_writer',
      deploymentVersion: 1,
      trigger: 'schedule',
      input: { topic: 'news' },
      startedAt: NOW.toISOString(),
      mode: 'async',
      usageOwner: 'user#usr_writer',
    });
  });

  it("carries the permission group policy of the schedule's user", async () => {
    // Prepare
    const { deps, fireDeps } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', input: { topic: 'news' } });
    const policy = { groupId: 'pg_1', groupName: 'Contractors', allowedBlocks: ['function'] };
    const asked: string[] = [];

    // Act
    const request = await runRequestForFire(
      {
        ...fireDeps,
        policyOf: async (userId) => {
          asked.push(userId);
          return policy;
        },
      },
      fire,
    );

    // Assess
    expect(request?.policy).toEqual(policy);
    expect(asked).toEqual(['usr_writer']);
  });

  it('starts no run past the usage limit, and says why on the schedule', async () => {
    // Prepare
    const { deps, fireDeps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', input: { topic: 'news' } });
    const overLimit: FireDeps = {
      ...fireDeps,
      usageOwnerOf: async () => {
        throw new UsageLimitExceededError(
          'Usage limit exceeded: $10.00 used of the $10.00 this month allows',
        );
      },
    };

    // Act
    const request = await runRequestForFire(overLimit, fire);

    // Assess
    expect(request).toBeUndefined();
    expect((await schedules.getSchedule('wf_live'))?.lastError).toContain('Usage limit exceeded');
  });

  it('answers the same execution id for a fire delivered twice, and notes the fire once', async () => {
    // Prepare
    const { deps, fireDeps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', input: { topic: 'news' } });

    // Act
    const first = await runRequestForFire(fireDeps, fire);
    const second = await runRequestForFire(fireDeps, { ...fire, scheduledTime: '2025-06-01T12:00:00.000Z' });

    // Assess
    expect(second?.executionId).toBe(first?.executionId);
    expect((await schedules.getSchedule('wf_live'))?.lastRunAt).toBe('2025-06-01T12:00:00.000Z');
  });

  it('fills defaults and coerces the input against the deployed Start block', async () => {
    // Prepare
    const { deps, fireDeps, workflows } = fixture();
    workflows.addDeployed(
      'wf_typed',
      'ws_1',
      graphWithInput([
        { name: 'count', type: 'number', required: true },
        { name: 'label', type: 'string', default: 'daily' },
      ]),
    );
    await putSchedule(deps, writer, 'wf_typed', { rateMinutes: 60, input: { count: '3' } });

    // Act
    const request = await runRequestForFire(fireDeps, { ...fire, workflowId: 'wf_typed' });

    // Assess
    expect(request?.input).toEqual({ count: 3, label: 'daily' });
  });

  it('starts no run and says why on the schedule when the input no longer fits the Start block', async () => {
    // Prepare
    const { deps, fireDeps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *' });

    // Act
    const request = await runRequestForFire(fireDeps, fire);

    // Assess
    expect(request).toBeUndefined();
    const schedule = await schedules.getSchedule('wf_live');
    expect(schedule?.lastError).toContain('topic');
    expect(schedule?.lastRunAt).toBe('2025-06-01T12:00:00.000Z');
  });

  it('starts no run when the user who put the schedule may no longer write', async () => {
    // Prepare
    const { deps, fireDeps, members, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', input: { topic: 'news' } });
    members.set('ws_1', 'usr_writer', 'read');

    // Act
    const request = await runRequestForFire(fireDeps, fire);

    // Assess
    expect(request).toBeUndefined();
    expect((await schedules.getSchedule('wf_live'))?.lastError).toContain('may no longer run');
  });

  it('starts no run for a workflow that is not deployed, and notes nothing', async () => {
    // Prepare
    const { deps, fireDeps, schedules } = fixture();
    await putSchedule(deps, writer, 'wf_draft', { cron: '0 12 * * *', input: { topic: 'news' } });

    // Act
    const request = await runRequestForFire(fireDeps, { ...fire, workflowId: 'wf_draft' });

    // Assess
    expect(request).toBeUndefined();
    expect((await schedules.getSchedule('wf_draft'))?.lastRunAt).toBeUndefined();
  });

  it('starts no run for a schedule that is disabled or gone', async () => {
    // Prepare
    const { deps, fireDeps } = fixture();
    await putSchedule(deps, writer, 'wf_live', { cron: '0 12 * * *', enabled: false });

    // Act
    const disabled = await runRequestForFire(fireDeps, fire);
    const gone = await runRequestForFire(fireDeps, { ...fire, workflowId: 'wf_draft' });

    // Assess
    expect(disabled).toBeUndefined();
    expect(gone).toBeUndefined();
  });
});
