/**
 * Rate limits, usage limits and plans as a client meets them: the X-RateLimit-* headers on every
 * key-authenticated route, 429 with Retry-After, 402 at the usage limit, plans and organizations,
 * failed authentication per source address, and the public client reading all of it.
 */
import { SimStudioClient, SimStudioError } from 'simstudio-ts-sdk';
import { describe, expect, it, vi } from 'vitest';
import { DynamoLimitsStore } from '../../../adapters/dynamodb/limits-store';
import { usagePeriodOf } from '../../../core/limits/service';
import { type RouteDefinition, routes } from '../../../catalog/routes';
import { requestFrom } from '../../support/from-address';
import { deployedWorkflow, type Tenant, useLocalService } from '../../support/service';

// Slow refills (one token every 10 s at 6 a minute), so a burst that is used up stays used up for
// the length of a test; `pro` is out of reach, for tenants whose tests are about something else.
const slow = (maxBurst: number) => ({ requestsPerMinute: 6, maxBurst });
const unreachable = { requestsPerMinute: 600_000, maxBurst: 100_000 };
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { api: slow(4), sync: slow(2), async: slow(2) },
  pro: { api: unreachable, sync: unreachable, async: unreachable },
  team: { api: slow(20), sync: slow(3), async: slow(3) },
  // One token a second: the public client's retry waits for it.
  enterprise: { api: unreachable, sync: { requestsPerMinute: 60, maxBurst: 1 }, async: unreachable },
  authFailures: slow(3),
});
delete process.env.USAGE_LIMITS_JSON;
process.env.BASE_CHARGE_PER_RUN_USD = '0.001';

const service = useLocalService();

const rateHeaders = (answer: { headers: Headers }) => ({
  limit: answer.headers.get('x-ratelimit-limit'),
  remaining: answer.headers.get('x-ratelimit-remaining'),
  reset: answer.headers.get('x-ratelimit-reset'),
});

/** A request from the given loopback address, so failed authentications count against it alone. */
const from = (localAddress: string, method: string, path: string, headers: Record<string, string>) =>
  requestFrom(localAddress, service.get().url, method, path, { headers });

async function usageOf(tenant: Tenant) {
  const answer = await tenant.call('GET', '/api/users/me/usage-limits');
  expect(answer.status).toBe(200);
  return answer.body;
}

describe('X-RateLimit-* headers', () => {
  it('are on the answer of every key-authenticated route in the route table, errors included', async () => {
    // Prepare: a tenant out of reach of its limits, and every route called as it comes (most with
    // ids that do not exist, so the answers are 400s and 404s)
    const tenant = await service.get().newTenant('headers', { plan: 'pro' });
    const keyRoutes = (routes as readonly RouteDefinition[]).filter((route) => route.auth === 'apiKey');
    expect(keyRoutes.map((route) => route.id)).toEqual(
      expect.arrayContaining(['executeWorkflow', 'runWorkflow', 'getUsageLimits', 'getJob', 'listWorkflows']),
    );

    for (const route of keyRoutes) {
      // Act
      const path = route.path.replace(/\{[^}]+\}/g, 'missing_1');
      const answer = await tenant.call(route.method, path, route.method === 'GET' ? undefined : {});

      // Assess
      const headers = rateHeaders(answer);
      expect(headers.limit, `${route.id} answered ${answer.status}`).toBe('600000');
      expect(Number(headers.remaining), route.id).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(headers.reset ?? '')), route.id).toBe(false);
    }
  });

  it('show the bucket the request drew from, counting down', async () => {
    // Prepare
    const tenant = await service.get().newTenant('count');
    const id = await deployedWorkflow(tenant);

    // Act
    const sync = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const api = await tenant.call('GET', '/api/workflows');

    // Assess: free sync 6 a minute, burst 2; free api burst 4, two of them spent deploying
    expect(sync.status).toBe(200);
    expect(rateHeaders(sync)).toMatchObject({ limit: '6', remaining: '1' });
    expect(rateHeaders(api)).toMatchObject({ limit: '6', remaining: '1' });
    const resetInMs = Date.parse(rateHeaders(api).reset ?? '') - Date.now();
    expect(resetInMs).toBeGreaterThan(0);
    expect(resetInMs).toBeLessThanOrEqual(10_000);
  });
});

describe('429 RATE_LIMIT_EXCEEDED', () => {
  it('refuses a request past the burst with Retry-After, and stores nothing of it', async () => {
    // Prepare: two of the four api tokens go to creating and deploying a workflow
    const tenant = await service.get().newTenant('burst');
    await deployedWorkflow(tenant);
    const create = (name: string) =>
      tenant.call('POST', '/api/workflows', { workspaceId: tenant.workspaceId, name });

    // Act
    const admitted = [await create('second'), await create('third')];
    const refused = await create('fourth');

    // Assess
    expect(admitted.map((answer) => answer.status)).toEqual([201, 201]);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringContaining('Rate limit exceeded'),
      code: 'RATE_LIMIT_EXCEEDED',
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(rateHeaders(refused)).toMatchObject({ limit: '6', remaining: '0' });

    // A plan change applies from the next request; the refused workflow was never stored
    const upgraded = await service
      .get()
      .admin('PATCH', `/api/v1/admin/users/${tenant.userId}`, { plan: 'pro' });
    expect(upgraded.body.data).toMatchObject({ id: tenant.userId, plan: 'pro' });
    const listed = await tenant.call('GET', `/api/workflows?workspaceId=${tenant.workspaceId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((workflow: { name: string }) => workflow.name).sort()).toEqual([
      'Flow',
      'second',
      'third',
    ]);
  });

  it('refuses a sync run past the sync burst and runs nothing, while async has a bucket of its own', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runs');
    const id = await deployedWorkflow(tenant);
    const execute = () => tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const executeAsync = () =>
      fetch(`${service.get().url}/api/workflows/${id}/execute`, {
        method: 'POST',
        headers: {
          'x-api-key': tenant.apiKey,
          'content-type': 'application/json',
          'x-execution-mode': 'async',
        },
        body: JSON.stringify({ name: 'ada' }),
      });

    // Act
    const sync = [await execute(), await execute(), await execute()];
    const async = [await executeAsync(), await executeAsync(), await executeAsync()];

    // Assess: each run costs the base charge; the refused one cost nothing
    expect(sync.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(async.map((answer) => answer.status)).toEqual([202, 202, 429]);
    expect(async[2].headers.get('x-ratelimit-limit')).toBe('6');
    const usage = await usageOf(tenant);
    expect(usage.rateLimit.sync).toMatchObject({ isLimited: true, limit: 6, remaining: 0 });
    expect(usage.rateLimit.async).toMatchObject({ isLimited: true, remaining: 0 });
    expect(usage.usage.currentPeriodCost).toBeGreaterThanOrEqual(0.002);
    expect(usage.usage.currentPeriodCost).toBeLessThanOrEqual(0.004);
  });

  it('is never answered to a manual run, which shows the sync bucket untouched', async () => {
    // Prepare
    const tenant = await service.get().newTenant('manual');
    const id = await deployedWorkflow(tenant);

    // Act
    const runs = [];
    for (let index = 0; index < 4; index++) {
      runs.push(await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } }));
    }

    // Assess
    expect(runs.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(rateHeaders(runs[3])).toMatchObject({ limit: '6', remaining: '2' });
  });

  it("draws webhook calls from the async bucket of the webhook's owner", async () => {
    // Prepare
    const tenant = await service.get().newTenant('hooks');
    const id = await deployedWorkflow(tenant);
    const webhook = await tenant.call('POST', `/api/workflows/${id}/webhooks`, {});
    const trigger = () =>
      fetch(`${service.get().url}/api/webhooks/trigger/${webhook.body.data.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ada' }),
      });

    // Act
    const calls = [await trigger(), await trigger(), await trigger()];

    // Assess
    expect(calls.map((answer) => answer.status)).toEqual([202, 202, 429]);
    expect(Number(calls[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await calls[2].json()) as { code: string }).code).toBe('RATE_LIMIT_EXCEEDED');
  });
});

describe('402 USAGE_LIMIT_EXCEEDED', () => {
  it('refuses every kind of new run once the month reaches the usage limit, until the limit is raised', async () => {
    // Prepare: two runs at the base charge of $0.001 reach the limit
    const tenant = await service.get().newTenant('spender', { plan: 'pro', usageLimitUsd: 0.002 });
    const id = await deployedWorkflow(tenant);
    const execute = (headers: Record<string, string> = {}) =>
      fetch(`${service.get().url}/api/workflows/${id}/execute`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'ada' }),
      });
    expect((await execute()).status).toBe(200);
    expect((await execute()).status).toBe(200);

    // Act
    const sync = await execute();
    const async = await execute({ 'x-execution-mode': 'async' });
    const manual = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } });

    // Assess
    expect([sync.status, async.status, manual.status]).toEqual([402, 402, 402]);
    const body = (await sync.json()) as { error: string; code: string };
    expect(body).toEqual({
      error: expect.stringContaining('Usage limit exceeded'),
      code: 'USAGE_LIMIT_EXCEEDED',
    });
    expect(body.error).toContain('$0.002 used of the $0.002');
    expect(sync.headers.get('x-ratelimit-limit')).toBe('600000');
    expect((await usageOf(tenant)).usage).toEqual({ currentPeriodCost: 0.002, limit: 0.002, plan: 'pro' });

    // Raising the limit lets runs through at once; null returns to the plan's
    const raised = await service
      .get()
      .admin('PATCH', `/api/v1/admin/users/${tenant.userId}`, { usageLimitUsd: 1 });
    expect(raised.body.data.usageLimitUsd).toBe(1);
    expect((await execute()).status).toBe(200);
    const reset = await service
      .get()
      .admin('PATCH', `/api/v1/admin/users/${tenant.userId}`, { usageLimitUsd: null });
    expect(reset.body.data.usageLimitUsd).toBeUndefined();
    expect((await usageOf(tenant)).usage).toEqual({ currentPeriodCost: 0.003, limit: 100, plan: 'pro' });
  });
});

describe('tokens taken ahead', () => {
  it('charges unused tokens taken ahead only until they expire, and never shows them as spent', async () => {
    // Prepare
    const tenant = await service.get().newTenant('leasing', { plan: 'pro' });
    const id = await deployedWorkflow(tenant);
    const stored = async () =>
      (await DynamoLimitsStore.fromEnv().read(`user#${tenant.userId}`, usagePeriodOf(new Date())))
        .periodCostUsd;

    // Act: runs one right after the other take tokens ahead of the next
    for (let index = 0; index < 5; index++) {
      expect((await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' })).status).toBe(200);
    }
    const chargedAhead = await stored();
    const shown = (await usageOf(tenant)).usage.currentPeriodCost;

    // Assess
    expect(chargedAhead).toBeGreaterThan(0.005);
    expect(shown).toBe(0.005);
    await vi.waitFor(async () => expect(await stored()).toBeCloseTo(0.005, 9), {
      timeout: 5_000,
      interval: 100,
    });
  });
});

describe('usage', () => {
  it('counts each run once, and nothing for a request that started no run', async () => {
    // Prepare
    const tenant = await service.get().newTenant('counted', { plan: 'pro' });
    const id = await deployedWorkflow(tenant);

    // Act
    const missing = await tenant.call('POST', '/api/workflows/wf_missing/execute', { name: 'ada' });
    const invalid = await tenant.call('POST', `/api/workflows/${id}/execute`, {});
    const ran = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const manual = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } });

    // Assess
    expect([missing.status, invalid.status, ran.status, manual.status]).toEqual([404, 400, 200, 200]);
    expect((await usageOf(tenant)).usage.currentPeriodCost).toBe(0.002);
  });
});

describe('plans', () => {
  it("apply an organization's higher plan to its members, who share its buckets and usage", async () => {
    // Prepare: two free users in a team organization, each with a workflow
    const owner = await service.get().newTenant('org-owner');
    const member = await service.get().newTenant('org-member');
    const organization = await service
      .get()
      .admin('POST', '/api/v1/admin/organizations', { name: 'Engines', ownerId: owner.userId, plan: 'team' });
    expect(organization.status).toBe(201);
    expect(organization.body.data.plan).toBe('team');
    const orgId = organization.body.data.id;
    const added = await service.get().admin('POST', `/api/v1/admin/organizations/${orgId}/members`, {
      userId: member.userId,
      role: 'member',
    });
    expect(added.status).toBe(200);
    const ownerFlow = await deployedWorkflow(owner);
    const memberFlow = await deployedWorkflow(member);

    // Act: the owner spends the organization's three sync tokens
    const spent = [];
    for (let index = 0; index < 3; index++) {
      spent.push((await owner.call('POST', `/api/workflows/${ownerFlow}/execute`, { name: 'ada' })).status);
    }
    const memberRun = await member.call('POST', `/api/workflows/${memberFlow}/execute`, { name: 'ada' });

    // Assess
    expect(spent).toEqual([200, 200, 200]);
    expect(memberRun.status).toBe(429);
    const usage = await usageOf(member);
    expect(usage.usage).toMatchObject({ plan: 'team', limit: 500 });
    expect(usage.usage.currentPeriodCost).toBeCloseTo(0.003, 9);

    // An organization back on the free plan no longer ranks above its members: their own buckets apply
    const patched = await service
      .get()
      .admin('PATCH', `/api/v1/admin/organizations/${orgId}`, { plan: 'free' });
    expect(patched.body.data).toMatchObject({ id: orgId, plan: 'free' });
    const own = await member.call('POST', `/api/workflows/${memberFlow}/execute`, { name: 'ada' });
    expect(own.status).toBe(200);
    expect(rateHeaders(own)).toMatchObject({ limit: '6', remaining: '1' });
  });

  it('keep a user to one organization', async () => {
    const user = await service.get().newTenant('joiner');
    const first = await service
      .get()
      .admin('POST', '/api/v1/admin/organizations', { name: 'One', ownerId: user.userId });
    const second = await service.get().admin('POST', '/api/v1/admin/organizations', {
      name: 'Two',
      ownerId: (await service.get().newTenant('other')).userId,
    });
    const joined = await service
      .get()
      .admin('POST', `/api/v1/admin/organizations/${second.body.data.id}/members`, {
        userId: user.userId,
        role: 'member',
      });
    expect(first.status).toBe(201);
    expect(joined.status).toBe(409);
    expect(joined.body.error).toContain(first.body.data.id);
  });

  it('are changed only with a plan or a usage limit, each checked', async () => {
    const user = await service.get().newTenant('patched');
    const empty = await service.get().admin('PATCH', `/api/v1/admin/users/${user.userId}`, {});
    const wrongPlan = await service
      .get()
      .admin('PATCH', `/api/v1/admin/users/${user.userId}`, { plan: 'gold' });
    const negative = await service
      .get()
      .admin('PATCH', `/api/v1/admin/users/${user.userId}`, { usageLimitUsd: -1 });
    const missing = await service.get().admin('PATCH', '/api/v1/admin/users/usr_missing', { plan: 'pro' });
    expect([empty.status, wrongPlan.status, negative.status, missing.status]).toEqual([400, 400, 400, 404]);
    expect(wrongPlan.body.details[0].path).toBe('plan');
    expect(negative.body.details[0].path).toBe('usageLimitUsd');
    expect((await usageOf(user)).usage.plan).toBe('free');
  });
});

describe('GET /api/users/me/usage-limits', () => {
  it("answers the interface's usage limits object for a key caller", async () => {
    const tenant = await service.get().newTenant('reader');
    const answer = await tenant.call('GET', '/api/users/me/usage-limits');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      rateLimit: {
        sync: { isLimited: false, limit: 6, remaining: 2, resetAt: expect.any(String) },
        async: { isLimited: false, limit: 6, remaining: 2, resetAt: expect.any(String) },
        authType: 'api',
      },
      usage: { currentPeriodCost: 0, limit: 10, plan: 'free' },
    });
    expect(rateHeaders(answer)).toMatchObject({ limit: '6', remaining: '3' });
  });
});

describe('failed authentication', () => {
  it('is limited per source address: past the burst even a valid key is refused there, not elsewhere', async () => {
    // Prepare
    const tenant = await service.get().newTenant('guarded', { plan: 'pro' });
    const guess = { 'x-api-key': 'svc_not-a-key-at-all' };

    // Act: three guesses from 127.0.0.3 (its burst), then a fourth, then the right key
    const guesses = [];
    for (let index = 0; index < 4; index++)
      guesses.push(await from('127.0.0.3', 'GET', '/api/workflows', guess));
    const rightKeyThere = await from('127.0.0.3', 'GET', '/api/users/me/usage-limits', {
      'x-api-key': tenant.apiKey,
    });
    const rightKeyElsewhere = await from('127.0.0.2', 'GET', '/api/users/me/usage-limits', {
      'x-api-key': tenant.apiKey,
    });

    // Assess
    expect(guesses.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
    expect(guesses.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(guesses[0].body.code).toBe('UNAUTHORIZED');
    expect(guesses[3].body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(guesses[3].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rightKeyThere.status).toBe(429);
    expect(rightKeyThere.headers).toMatchObject({ 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '0' });
    expect(rightKeyElsewhere.status).toBe(200);
  });

  it('counts wrong admin keys too', async () => {
    const wrong = { 'x-admin-key': 'not-the-admin-key' };
    const posts = [];
    for (let index = 0; index < 4; index++)
      posts.push(await from('127.0.0.5', 'POST', '/api/v1/admin/users', wrong));
    expect(posts.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
  });
});

describe('simstudio-ts-sdk', () => {
  it('reads the headers after a call, and executeWithRetry waits out a 429 and succeeds', async () => {
    // Prepare: an enterprise tenant whose sync bucket holds one token and refills one a second
    const tenant = await service.get().newTenant('sdk-limits', { plan: 'enterprise' });
    const id = await deployedWorkflow(tenant);
    const client = new SimStudioClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    await client.executeWorkflow(id, { name: 'ada' });
    const afterFirst = client.getRateLimitInfo();
    const refused = await client.executeWorkflow(id, { name: 'ada' }).catch((error: unknown) => error);
    const afterRefusal = client.getRateLimitInfo();
    const retried = await client.executeWithRetry(id, { name: 'ada' }, {}, { maxRetries: 3 });

    // Assess
    expect(afterFirst).toMatchObject({ limit: 60, remaining: 0 });
    expect(refused).toBeInstanceOf(SimStudioError);
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(afterRefusal?.retryAfter).toBe(1000);
    expect(retried).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    const limits = await client.getUsageLimits();
    expect(limits).toMatchObject({ success: true, usage: { plan: 'enterprise', limit: 10_000 } });
  });
});
