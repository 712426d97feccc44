/** Schedules through the compiled server: put by cron or by rate, read with the next fire, removed. */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

describe('schedules', () => {
  it('puts a cron schedule in a time zone and answers its next fire', async () => {
    // Prepare
    const tenant = await service.newTenant('cron');
    const id = await deployedWorkflow(tenant);

    // Act
    const put = await tenant.call('PUT', `/api/workflows/${id}/schedule`, {
      cron: '30 7 * * MON-FRI',
      timezone: 'Europe/Berlin',
      input: { name: 'ada' },
    });
    const read = await tenant.call('GET', `/api/workflows/${id}/schedule`);

    // Assess
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      workflowId: id,
      cron: '30 7 * * MON-FRI',
      timezone: 'Europe/Berlin',
      input: { name: 'ada' },
      enabled: true,
    });
    const nextRunAt = new Date(put.body.data.nextRunAt);
    expect(nextRunAt.getTime()).toBeGreaterThan(Date.now());
    // 07:30 in Berlin is 05:30 or 06:30 UTC, on a weekday.
    expect([5, 6]).toContain(nextRunAt.getUTCHours());
    expect(nextRunAt.getUTCMinutes()).toBe(30);
    expect([1, 2, 3, 4, 5]).toContain(nextRunAt.getUTCDay());
    expect(read.body.data).toEqual(put.body.data);
  });

  it('replaces it with a rate, disables it, and deletes it', async () => {
    // Prepare
    const tenant = await service.newTenant('rate');
    const id = await deployedWorkflow(tenant);
    await tenant.call('PUT', `/api/workflows/${id}/schedule`, { cron: '0 0 * * *', input: { name: 'ada' } });

    // Act
    const rate = await tenant.call('PUT', `/api/workflows/${id}/schedule`, {
      rateMinutes: 60,
      input: { name: 'ada' },
    });
    const disabled = await tenant.call('PUT', `/api/workflows/${id}/schedule`, {
      rateMinutes: 60,
      input: { name: 'ada' },
      enabled: false,
    });
    const deleted = await tenant.call('DELETE', `/api/workflows/${id}/schedule`);
    const gone = await tenant.call('GET', `/api/workflows/${id}/schedule`);

    // Assess
    expect(rate.status).toBe(200);
    expect(rate.body.data).toMatchObject({ rateMinutes: 60, timezone: 'UTC', enabled: true });
    const inMs = Date.parse(rate.body.data.nextRunAt) - Date.now();
    expect(inMs).toBeGreaterThan(0);
    expect(inMs).toBeLessThanOrEqual(60 * 60_000);
    expect(disabled.body.data).toMatchObject({ enabled: false, nextRunAt: null });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { deleted: true } });
    expect(gone.status).toBe(404);
  });

  it('refuses a cron that is not 5 fields with 400 naming cron', async () => {
    // Prepare
    const tenant = await service.newTenant('bad-cron');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('PUT', `/api/workflows/${id}/schedule`, { cron: 'every day' });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toBe('cron');
  });
});
