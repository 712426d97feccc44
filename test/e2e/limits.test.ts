/**
 * Rate and usage limits through the compiled server: the X-RateLimit headers, 429 with Retry-After
 * once a bucket is empty (users moved to the plan the suite keeps tight, test/e2e/settings.ts),
 * the caller's usage limits, and 402 once the usage limit is reached.
 */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow } from '../../support/api-client';
import { useE2eService } from './service';
import { tightBuckets, tightPlan } from './settings';

const service = useE2eService();

describe('rate limits', () => {
  it('answers 429 with Retry-After once the api bucket is empty, with the bucket in the headers', async () => {
    // Prepare
    const tenant = await service.newTenant('api-bucket', { plan: tightPlan });
    const burst = tightBuckets.api.maxBurst;

    // Act
    const admitted = [];
    for (let i = 0; i < burst; i++) admitted.push(await tenant.call('GET', '/api/workspaces'));
    const refused = await tenant.call('GET', '/api/workspaces');

    // Assess
    expect(admitted.map((answer) => answer.status)).toEqual(Array(burst).fill(200));
    expect(admitted.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual(
      Array.from({ length: burst }, (_, index) => String(burst - 1 - index)),
    );
    expect(admitted[0].headers.get('x-ratelimit-limit')).toBe(String(tightBuckets.api.requestsPerMinute));
    expect(Date.parse(admitted[0].headers.get('x-ratelimit-reset') ?? '')).not.toBeNaN();
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('refuses a sync run with 429 once the sync bucket of the plan a user was moved to is empty', async () => {
    // Prepare
    const tenant = await service.newTenant('sync-bucket');
    const id = await deployedWorkflow(tenant);
    const moved = await service.admin('PATCH', `/api/v1/admin/users/${tenant.userId}`, { plan: tightPlan });
    const burst = tightBuckets.sync.maxBurst;

    // Act
    const admitted = [];
    for (let i = 0; i < burst; i++)
      admitted.push(await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' }));
    const refused = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const limits = await tenant.call('GET', '/api/users/me/usage-limits');

    // Assess
    expect(moved.status).toBe(200);
    expect(moved.body.data.plan).toBe(tightPlan);
    expect(admitted.map((answer) => answer.status)).toEqual(Array(burst).fill(200));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limits.body.rateLimit.sync).toMatchObject({
      isLimited: true,
      limit: tightBuckets.sync.requestsPerMinute,
      remaining: 0,
    });
  });
});

describe('usage limits', () => {
  it("answers the caller's execution buckets and this month's usage", async () => {
    // Prepare
    const tenant = await service.newTenant('usage');
    const id = await deployedWorkflow(tenant);
    await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Act
    const answer = await tenant.call('GET', '/api/users/me/usage-limits');

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      rateLimit: {
        sync: {
          isLimited: false,
          limit: expect.any(Number),
          remaining: expect.any(Number),
          resetAt: expect.any(String),
        },
        async: { isLimited: false },
        authType: 'api',
      },
      usage: { limit: 10, plan: 'free' },
    });
    expect(answer.body.usage.currentPeriodCost).toBeGreaterThan(0);
  });

  it('refuses runs with 402 while the usage limit is reached, and admits them once it is raised', async () => {
    // Prepare
    const tenant = await service.newTenant('capped', { usageLimitUsd: 0 });
    const id = await deployedWorkflow(tenant);

    // Act
    const refused = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const raised = await service.admin('PATCH', `/api/v1/admin/users/${tenant.userId}`, {
      usageLimitUsd: null,
    });
    const admitted = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect(refused.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));
    expect(raised.status).toBe(200);
    expect(admitted.status).toBe(200);
    expect(admitted.body.success).toBe(true);
  });
});
