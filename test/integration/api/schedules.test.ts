import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fireExecutionId, runRequestForFire } from '../../../core/schedules/service';
import type { Schedule, ScheduleRegistry } from '../../../core/schedules/types';
import { overrideAdapters } from '../../../functions/wiring/overrides';
import { scheduleFireDeps } from '../../../functions/wiring/schedules';
import { deployedWorkflow, draftWorkflow, useLocalService } from '../../support/service';

const service = useLocalService();

/** Stands in for what fires schedules, noting what the routes ask of it. */
class RecordingRegistry implements ScheduleRegistry {
  calls: string[] = [];
  async apply(schedule: Schedule) {
    this.calls.push(`apply ${schedule.workflowId} ${schedule.enabled ? 'enabled' : 'disabled'}`);
  }
  async remove(workflowId: string) {
    this.calls.push(`remove ${workflowId}`);
  }
}

const registry = new RecordingRegistry();

beforeAll(() => {
  overrideAdapters({ scheduleRegistry: registry });
});

afterEach(() => {
  registry.calls = [];
  overrideAdapters({ scheduleRegistry: registry });
});

const schedulePath = (workflowId: string) => `/api/workflows/${workflowId}/schedule`;

describe('PUT /api/workflows/{workflowId}/schedule', () => {
  it('answers the schedule with its next fire in the time zone', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);
    const before = Date.now();

    // Act
    const answer = await tenant.call('PUT', schedulePath(id), {
      cron: '15 3 * * *',
      timezone: 'Asia/Tokyo',
      input: { name: 'ada' },
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      workflowId: id,
      cron: '15 3 * * *',
      timezone: 'Asia/Tokyo',
      input: { name: 'ada' },
      enabled: true,
    });
    const next = new Date(answer.body.data.nextRunAt);
    expect(next.getUTCHours()).toBe(18); // 03:15 in Tokyo (UTC+9, no DST)
    expect(next.getUTCMinutes()).toBe(15);
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime() - before).toBeLessThanOrEqual(24 * 3_600_000);
    expect(answer.body.data.createdAt).toBe(answer.body.data.updatedAt);
    expect(answer.body.data).not.toHaveProperty('userId');
  });

  it('accepts @daily, as a new user writes it, and keeps it as its five fields', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    const answer = await tenant.call('PUT', schedulePath(id), { cron: '@daily', timezone: 'UTC' });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data.cron).toBe('0 0 * * *');
    const next = new Date(answer.body.data.nextRunAt);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([0, 0]);
  });

  it('answers nextRunAt null for a disabled schedule', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    const answer = await tenant.call('PUT', schedulePath(id), { rateMinutes: 15, enabled: false });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      rateMinutes: 15,
      timezone: 'UTC',
      enabled: false,
      nextRunAt: null,
    });
  });

  it.each([
    [{ cron: '0 9 * *' }, 'cron'],
    [{ cron: '0 9 * * * *' }, 'cron'],
    [{ cron: '61 9 * * *' }, 'cron'],
    [{ cron: '0 9 1 * MON' }, 'cron'],
    [{ cron: '0 9 * * *', timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    [{ rateMinutes: 0 }, 'rateMinutes'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    const answer = await tenant.call('PUT', schedulePath(id), body);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details.map((detail: { path: string }) => detail.path)).toContain(field);
  });

  it.each([{ cron: '0 9 * * *', rateMinutes: 5 }, {}])(
    'refuses %j, which is not exactly one of cron and rateMinutes',
    async (body) => {
      // Prepare
      const tenant = await service.get().newTenant('scheduler');
      const id = await draftWorkflow(tenant);

      // Act
      const answer = await tenant.call('PUT', schedulePath(id), body);

      // Assess
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain('exactly one of cron and rateMinutes');
    },
  );

  it('refuses a member with read permission with 403', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const reader = await service.get().newTenant('reader');
    await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: reader.userId,
      permissions: 'read',
    });
    const id = await draftWorkflow(owner);
    await owner.call('PUT', schedulePath(id), { rateMinutes: 5 });

    // Act
    const put = await reader.call('PUT', schedulePath(id), { rateMinutes: 10 });
    const removed = await reader.call('DELETE', schedulePath(id));
    const read = await reader.call('GET', schedulePath(id));

    // Assess
    expect(put.status).toBe(403);
    expect(removed.status).toBe(403);
    expect(read.status).toBe(200);
    expect(read.body.data.rateMinutes).toBe(5);
  });

  it("answers 404 for another tenant's workflow, whatever the method", async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const stranger = await service.get().newTenant('stranger');
    const id = await draftWorkflow(owner);
    await owner.call('PUT', schedulePath(id), { rateMinutes: 5 });

    // Act
    const answers = [
      await stranger.call('PUT', schedulePath(id), { rateMinutes: 10 }),
      await stranger.call('GET', schedulePath(id)),
      await stranger.call('DELETE', schedulePath(id)),
    ];

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect((await owner.call('GET', schedulePath(id))).body.data.rateMinutes).toBe(5);
  });
});

describe('GET and DELETE /api/workflows/{workflowId}/schedule', () => {
  it('reads the schedule that was put, removes it, and then answers 404', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);
    const put = await tenant.call('PUT', schedulePath(id), { cron: '*/5 * * * *' });

    // Act
    const read = await tenant.call('GET', schedulePath(id));
    const removed = await tenant.call('DELETE', schedulePath(id));
    const readAgain = await tenant.call('GET', schedulePath(id));
    const removedAgain = await tenant.call('DELETE', schedulePath(id));

    // Assess
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ ...put.body.data, nextRunAt: expect.any(String) });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ data: { deleted: true } });
    expect(readAgain.status).toBe(404);
    expect(removedAgain.status).toBe(404);
  });

  it('answers 404 for a workflow without a schedule', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    const answer = await tenant.call('GET', schedulePath(id));

    // Assess
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('NOT_FOUND');
  });
});

describe('schedules and deployment', () => {
  it('hands the schedule to the registry when the workflow is deployed, and takes it back on undeploy', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    await tenant.call('PUT', schedulePath(id), { rateMinutes: 5, input: { name: 'ada' } });
    const afterPut = [...registry.calls];
    await tenant.call('POST', `/api/workflows/${id}/deploy`);
    await tenant.call('PUT', schedulePath(id), { rateMinutes: 5, enabled: false });
    await tenant.call('POST', `/api/workflows/${id}/undeploy`);
    await tenant.call('DELETE', schedulePath(id));

    // Assess
    expect(afterPut).toEqual([]);
    expect(registry.calls).toEqual([
      `apply ${id} enabled`,
      `apply ${id} disabled`,
      `remove ${id}`,
      `remove ${id}`,
    ]);
  });

  it('deploys and undeploys a workflow without a schedule without asking any registry', async () => {
    // Prepare
    overrideAdapters({ scheduleRegistry: undefined });
    const tenant = await service.get().newTenant('scheduler');
    const id = await draftWorkflow(tenant);

    // Act
    const deployed = await tenant.call('POST', `/api/workflows/${id}/deploy`);
    const undeployed = await tenant.call('POST', `/api/workflows/${id}/undeploy`);

    // Assess
    expect(deployed.status).toBe(200);
    expect(undeployed.status).toBe(200);
  });
});

describe('a fire of a schedule put through the API', () => {
  it('becomes an async run of the deployed workflow with the schedule input, as the user who put it', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await deployedWorkflow(tenant);
    await tenant.call('PUT', schedulePath(id), { cron: '0 * * * *', input: { name: 'ada' } });
    const scheduledTime = '2030-01-01T10:00:00Z';

    // Act
    const request = await runRequestForFire(scheduleFireDeps(), { workflowId: id, scheduledTime });
    const schedule = await tenant.call('GET', schedulePath(id));

    // Assess
    expect(request).toMatchObject({
      executionId: fireExecutionId(id, scheduledTime),
      workflowId: id,
      workspaceId: tenant.workspaceId,
      userId: tenant.userId,
      deploymentVersion: 1,
      trigger: 'schedule',
      input: { name: 'ada' },
      mode: 'async',
    });
    expect(schedule.body.data.lastRunAt).toBe('2030-01-01T10:00:00.000Z');
  });

  it('starts nothing, and says why, when the input does not fit the deployed Start block', async () => {
    // Prepare
    const tenant = await service.get().newTenant('scheduler');
    const id = await deployedWorkflow(tenant);
    await tenant.call('PUT', schedulePath(id), { cron: '0 * * * *', input: {} });

    // Act
    const request = await runRequestForFire(scheduleFireDeps(), {
      workflowId: id,
      scheduledTime: '2030-01-01T10:00:00Z',
    });
    const schedule = await tenant.call('GET', schedulePath(id));

    // Assess
    expect(request).toBeUndefined();
    expect(schedule.body.data.lastError).toContain('name');
  });
});
