import { describe, expect, it } from 'vitest';
import { UsageLimitExceededError } from '../../../core/errors';
import type { Organization, User } from '../../../core/identity/types';
import { admitOwner } from '../../../core/limits/admission';
import { limitsConfigFrom } from '../../../core/limits/plans';
import {
  type Admission,
  admitBackgroundRun,
  type LimitsDeps,
  limitOwnerOf,
  limitsBlock,
  admitManualRun,
  recordRunCost,
  refundCharge,
  requireUsageLeft,
  takeAuthFailure,
  takeToken,
  usageLimitsOf,
  usagePeriodOf,
} from '../../../core/limits/service';
import { TokenLeases } from '../../../core/limits/token-leases';
import type { BucketKind, LimitOwner, LimitsStore } from '../../../core/limits/types';
import { InMemoryLimitsStore } from '../../support/in-memory-limits';

const t0 = Date.parse('2026-11-22T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** The limits use cases on an in-memory store, the default config and a fake clock at `t0`. */
function setup(organizations: Organization[] = [], leases?: TokenLeases) {
  let clockInMs = t0;
  const store = new InMemoryLimitsStore();
  const deps: LimitsDeps = {
    store,
    organizations: { getOrganization: async (id) => organizations.find((org) => org.id === id) },
    config: limitsConfigFrom({}),
    now: () => new Date(clockInMs),
    ...(leases ? { leases } : {}),
  };
  const clock = {
    advance: (ms: number) => {
      clockInMs += ms;
    },
    set: (moment: string) => {
      clockInMs = Date.parse(moment);
    },
  };
  return { deps, store, clock };
}

/** Takes `count` tokens at the current time; answers how many were admitted and the last admission. */
async function takeMany(deps: LimitsDeps, owner: LimitOwner, kind: BucketKind, count: number) {
  let admitted = 0;
  let last: Admission | undefined;
  for (let i = 0; i < count; i++) {
    last = await takeToken(deps, owner, kind);
    if (last.admitted) admitted++;
  }
  return { admitted, last: last as Admission };
}

function userOf(fields: Partial<User> = {}): User {
  return {
    id: 'u1',
    email: 'ada@example.com',
    name: 'Ada',
    plan: 'free',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

function organizationOf(fields: Partial<Organization> = {}): Organization {
  return {
    id: 'o1',
    name: 'Analytical Engines',
    ownerId: 'u1',
    plan: 'team',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

const freeOwner: LimitOwner = { key: 'user#u1', plan: 'free', usageLimitUsd: 10 };

/** The error `act` throws (the test fails when it throws none). */
function errorOf(act: () => void): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}

describe('takeToken with token leases', () => {
  const leasing = () => setup([], new TokenLeases({ maxTokens: 16, lifetimeInMs: 1000 }));
  const charge = 0.001;

  it('admits 100 quick runs with fewer than a fifth of the writes, each told one token less', async () => {
    // Prepare
    const { deps, store } = leasing();

    // Act
    const remaining: number[] = [];
    for (let index = 0; index < 100; index++) {
      remaining.push((await takeToken(deps, freeOwner, 'sync', charge)).state.remaining);
    }

    // Assess
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, index) => 119 - index));
    expect(store.writes).toBeLessThan(20);
  });

  it('takes nothing ahead for a request that comes alone', async () => {
    // Prepare
    const { deps, store, clock } = leasing();

    // Act
    await takeToken(deps, freeOwner, 'sync', charge);
    clock.advance(5_000);
    await takeToken(deps, freeOwner, 'sync', charge);

    // Assess
    expect(store.writes).toBe(2);
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBeCloseTo(2 * charge, 9);
  });

  it('tells each leased run the period cost before its own charge', async () => {
    // Prepare
    const { deps } = leasing();

    // Act
    const costs: number[] = [];
    for (let index = 0; index < 20; index++) {
      costs.push((await takeToken(deps, freeOwner, 'sync', charge)).periodCostUsd);
    }

    // Assess
    expect(costs.map((usd) => Math.round(usd / charge))).toEqual(
      Array.from({ length: 20 }, (_, index) => index),
    );
  });

  it('shows the period cost without the leased tokens not used yet, and stores it once they are given back', async () => {
    // Prepare
    const leases = new TokenLeases({ maxTokens: 16, lifetimeInMs: 1000 });
    const { deps, store, clock } = setup([], leases);
    for (let index = 0; index < 4; index++) await takeToken(deps, freeOwner, 'sync', charge);
    const chargedAhead = (await store.read('user#u1', '2026-11')).periodCostUsd;

    // Act
    const shown = (await usageLimitsOf(deps, freeOwner, 'api')).usage.currentPeriodCost;
    clock.advance(1_500);
    for (const refund of leases.sweep(t0 + 1_500))
      await store.charge(refund.ownerKey, refund.period, -refund.usd);
    const next = await takeToken(deps, freeOwner, 'sync', charge);

    // Assess
    expect(chargedAhead).toBeGreaterThan(4 * charge);
    expect(shown).toBeCloseTo(4 * charge, 9);
    expect(next.periodCostUsd).toBeCloseTo(4 * charge, 9);
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBeCloseTo(5 * charge, 9);
  });

  it('gives back the charge of expired tokens in a sweep when no take comes', async () => {
    // Prepare
    const leases = new TokenLeases({ maxTokens: 16, lifetimeInMs: 1000 });
    const { deps, store, clock } = setup([], leases);
    for (let index = 0; index < 4; index++) await takeToken(deps, freeOwner, 'sync', charge);
    clock.advance(1_500);

    // Act
    for (const refund of leases.sweep(t0 + 1_500))
      await store.charge(refund.ownerKey, refund.period, -refund.usd);

    // Assess
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBeCloseTo(4 * charge, 9);
    expect(leases.sweep(t0 + 1_500)).toEqual([]);
  });

  it('refuses a lease past what the bucket holds, and still admits the request its own token', async () => {
    // Prepare
    const { deps, store } = leasing();
    // Two takes, the second with one token ahead, which the third uses: nothing is left leased.
    await takeMany(deps, freeOwner, 'sync', 3);
    // Other processes take all tokens but one, unseen by this one's leases.
    for (let index = 0; index < 116; index++)
      await store.take('user#u1', 'sync_60_120', { requestsPerMinute: 60, maxBurst: 120 }, t0);

    // Act
    const last = await takeToken(deps, freeOwner, 'sync');
    const refused = await takeToken(deps, freeOwner, 'sync');

    // Assess
    expect(last.admitted).toBe(true);
    expect(refused.admitted).toBe(false);
  });
});

describe('takeToken', () => {
  it.each([
    ['', () => setup()],
    [', with token leases', () => setup([], new TokenLeases({ maxTokens: 16, lifetimeInMs: 1000 }))],
  ])(
    'admits a full free sync burst of 120 at once and refuses the 121st for one second%s',
    async (_, made) => {
      // Prepare
      const { deps } = made();

      // Act
      const burst = await takeMany(deps, freeOwner, 'sync', 120);
      const refused = await takeToken(deps, freeOwner, 'sync');

      // Assess
      expect(burst.admitted).toBe(120);
      expect(refused.admitted).toBe(false);
      expect(refused.state.remaining).toBe(0);
      expect(refused.state.retryAfterInSeconds).toBe(1);
    },
  );

  it('refills exactly 30 tokens after 30 seconds idle', async () => {
    // Prepare
    const { deps, clock } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    clock.advance(30_000);

    // Act
    const { admitted } = await takeMany(deps, freeOwner, 'sync', 200);

    // Assess
    expect(admitted).toBe(30);
  });

  it('refills no more than the burst of 120 after 10 minutes idle', async () => {
    // Prepare
    const { deps, clock } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    clock.advance(30_000);
    await takeMany(deps, freeOwner, 'sync', 200);
    clock.advance(10 * 60_000);

    // Act
    const { admitted } = await takeMany(deps, freeOwner, 'sync', 200);

    // Assess
    expect(admitted).toBe(120);
  });

  it('refills 90 tokens 90 seconds after the bucket was emptied', async () => {
    // Prepare
    const { deps, clock } = setup();
    await takeMany(deps, freeOwner, 'sync', 121);
    clock.advance(90_000);

    // Act
    const { admitted } = await takeMany(deps, freeOwner, 'sync', 200);

    // Assess
    expect(admitted).toBe(90);
  });

  it('reports the rate as the limit, the remaining tokens counting down and the next token as reset', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const first = await takeToken(deps, freeOwner, 'sync');
    const second = await takeToken(deps, freeOwner, 'sync');
    const third = await takeToken(deps, freeOwner, 'sync');

    // Assess
    expect(first).toEqual({
      bucket: 'sync',
      admitted: true,
      state: { limit: 60, remaining: 119, resetAt: iso(t0 + 1000) },
      periodCostUsd: 0,
    });
    expect(second.state).toEqual({ limit: 60, remaining: 118, resetAt: iso(t0 + 1000) });
    expect(third.state).toEqual({ limit: 60, remaining: 117, resetAt: iso(t0 + 1000) });
  });

  it('reports a refused take with no tokens and the time of the next token as reset', async () => {
    // Prepare
    const { deps, clock } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    clock.advance(200);

    // Act
    const refused = await takeToken(deps, freeOwner, 'sync');

    // Assess
    expect(refused).toEqual({
      bucket: 'sync',
      admitted: false,
      state: { limit: 60, remaining: 0, resetAt: iso(t0 + 1000), retryAfterInSeconds: 1 },
      periodCostUsd: 0,
    });
  });

  it("answers the owner's cost in the current period with the token", async () => {
    // Prepare
    const { deps, store } = setup();
    await store.addRunCost('user#u1', '2026-11', 'e1', 2.5);
    await store.addRunCost('user#u1', '2026-10', 'e0', 7);

    // Act
    const admission = await takeToken(deps, freeOwner, 'async');

    // Assess
    expect(admission.periodCostUsd).toBe(2.5);
  });

  it('keeps the buckets of each kind apart', async () => {
    // Prepare
    const { deps } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);

    // Act
    const api = await takeToken(deps, freeOwner, 'api');
    const async = await takeToken(deps, freeOwner, 'async');

    // Assess
    expect(api.state).toMatchObject({ limit: 10, remaining: 19 });
    expect(async.state).toMatchObject({ limit: 200, remaining: 399 });
  });

  it('moves an owner whose plan changed to fresh buckets of the new rate', async () => {
    // Prepare
    const { deps } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    const upgraded: LimitOwner = { ...freeOwner, plan: 'pro', usageLimitUsd: 100 };

    // Act
    const admission = await takeToken(deps, upgraded, 'sync');

    // Assess
    expect(admission.admitted).toBe(true);
    expect(admission.state).toMatchObject({ limit: 150, remaining: 299 });
  });

  it('lets two members of a team organization draw from one bucket', async () => {
    // Prepare
    const { deps } = setup([organizationOf({ id: 'o1', plan: 'team' })]);
    const first = await limitOwnerOf(deps, userOf({ id: 'u1', organizationId: 'o1' }));
    const second = await limitOwnerOf(deps, userOf({ id: 'u2', organizationId: 'o1' }));

    // Act
    const byFirst = await takeToken(deps, first, 'sync');
    const bySecond = await takeToken(deps, second, 'sync');
    const rest = await takeMany(deps, first, 'sync', 598);
    const refusedToSecond = await takeToken(deps, second, 'sync');

    // Assess
    expect(byFirst.state).toMatchObject({ limit: 300, remaining: 599 });
    expect(bySecond.state).toMatchObject({ limit: 300, remaining: 598 });
    expect(rest.admitted).toBe(598);
    expect(refusedToSecond.admitted).toBe(false);
  });
});

describe('admitManualRun', () => {
  it('shows a new sync bucket full with its reset now, and counts the base charge', async () => {
    // Prepare
    const { deps, store } = setup();

    // Act
    const admission = await admitManualRun(deps, freeOwner, 0.001);

    // Assess
    expect(admission).toEqual({
      bucket: 'sync',
      admitted: true,
      state: { limit: 60, remaining: 120, resetAt: iso(t0) },
      periodCostUsd: 0,
      charged: { ownerKey: 'user#u1', period: '2026-11', usd: 0.001 },
    });
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(0.001);
  });

  it('draws no token: the sync bucket stays as it stands', async () => {
    // Prepare
    const { deps, store } = setup();
    await takeMany(deps, freeOwner, 'sync', 2);
    const before = await store.read('user#u1', '2026-11');

    // Act
    const first = await admitManualRun(deps, freeOwner, 0);
    const second = await admitManualRun(deps, freeOwner, 0);

    // Assess
    expect(first.state).toEqual({ limit: 60, remaining: 118, resetAt: iso(t0 + 1000) });
    expect(second).toEqual(first);
    expect(await store.read('user#u1', '2026-11')).toEqual(before);
  });

  it('shows a bucket full again once it has refilled', async () => {
    // Prepare
    const { deps, clock } = setup();
    await takeToken(deps, freeOwner, 'sync');
    clock.advance(1000);

    // Act
    const admission = await admitManualRun(deps, freeOwner, 0);

    // Assess
    expect(admission.state).toEqual({ limit: 60, remaining: 120, resetAt: iso(t0 + 1000) });
  });
});

describe('execution charges', () => {
  it('counts the base charge with the token, and answers the cost as it stood before', async () => {
    // Prepare
    const { deps, store } = setup();

    // Act
    const first = await takeToken(deps, freeOwner, 'sync', 0.001);
    const second = await takeToken(deps, freeOwner, 'sync', 0.001);

    // Assess
    expect(first.periodCostUsd).toBe(0);
    expect(second.periodCostUsd).toBe(0.001);
    expect(second.charged).toEqual({ ownerKey: 'user#u1', period: '2026-11', usd: 0.001 });
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBeCloseTo(0.002, 12);
  });

  it('charges nothing for a refused take', async () => {
    // Prepare
    const { deps, store } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    const before = (await store.read('user#u1', '2026-11')).periodCostUsd;

    // Act
    const refused = await takeToken(deps, freeOwner, 'sync', 0.001);

    // Assess
    expect(refused.admitted).toBe(false);
    expect(refused.charged).toBeUndefined();
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(before);
  });

  it('gives the charge back to a request that started no run', async () => {
    // Prepare
    const { deps, store } = setup();
    const admission = await takeToken(deps, freeOwner, 'sync', 0.5);

    // Act
    await refundCharge(deps, admission);

    // Assess
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(0);
  });
});

describe('takeAuthFailure', () => {
  it('counts failures against the source address at the authFailures rate of 10 a minute, burst 20', async () => {
    // Prepare
    const { deps, store } = setup();
    for (let i = 0; i < 20; i++) await takeAuthFailure(deps, '203.0.113.7');

    // Act
    const refused = await takeAuthFailure(deps, '203.0.113.7');
    const other = await takeAuthFailure(deps, '198.51.100.1');

    // Assess
    expect(refused).toEqual({
      bucket: 'authFailures',
      admitted: false,
      state: { limit: 10, remaining: 0, resetAt: iso(t0 + 6000), retryAfterInSeconds: 6 },
      periodCostUsd: 0,
    });
    expect(other.admitted).toBe(true);
    expect((await store.read('source#203.0.113.7', '2026-11')).tatInMs).toEqual({
      authFailures_10_20: t0 + 20 * 6000,
    });
  });
});

describe('limitOwnerOf', () => {
  it("makes a user without an organization the owner, with the plan's usage limit", async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const owner = await limitOwnerOf(deps, userOf({ id: 'u1', plan: 'pro' }));

    // Assess
    expect(owner).toEqual({ key: 'user#u1', plan: 'pro', usageLimitUsd: 100 });
  });

  it("uses the user's own usage limit when one is set", async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const owner = await limitOwnerOf(deps, userOf({ id: 'u1', plan: 'free', usageLimitUsd: 25 }));

    // Assess
    expect(owner).toEqual({ key: 'user#u1', plan: 'free', usageLimitUsd: 25 });
  });

  it('makes the organization the owner when its plan ranks higher, with its plan and usage limit', async () => {
    // Prepare
    const { deps } = setup([
      organizationOf({ id: 'o1', plan: 'team' }),
      organizationOf({ id: 'o2', plan: 'enterprise', usageLimitUsd: 20_000 }),
    ]);

    // Act
    const ofTeam = await limitOwnerOf(
      deps,
      userOf({ plan: 'free', usageLimitUsd: 25, organizationId: 'o1' }),
    );
    const ofEnterprise = await limitOwnerOf(deps, userOf({ plan: 'pro', organizationId: 'o2' }));

    // Assess
    expect(ofTeam).toEqual({ key: 'org#o1', plan: 'team', usageLimitUsd: 500 });
    expect(ofEnterprise).toEqual({ key: 'org#o2', plan: 'enterprise', usageLimitUsd: 20_000 });
  });

  it('keeps the user the owner when the organization plan ranks lower or equal', async () => {
    // Prepare
    const { deps } = setup([
      organizationOf({ id: 'lower', plan: 'pro', usageLimitUsd: 1000 }),
      organizationOf({ id: 'equal', plan: 'team', usageLimitUsd: 1000 }),
    ]);

    // Act
    const underLower = await limitOwnerOf(deps, userOf({ id: 'u1', plan: 'team', organizationId: 'lower' }));
    const underEqual = await limitOwnerOf(deps, userOf({ id: 'u1', plan: 'team', organizationId: 'equal' }));

    // Assess
    expect(underLower).toEqual({ key: 'user#u1', plan: 'team', usageLimitUsd: 500 });
    expect(underEqual).toEqual({ key: 'user#u1', plan: 'team', usageLimitUsd: 500 });
  });

  it('keeps the user the owner when the organization is missing', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const owner = await limitOwnerOf(deps, userOf({ id: 'u1', plan: 'free', organizationId: 'gone' }));

    // Assess
    expect(owner).toEqual({ key: 'user#u1', plan: 'free', usageLimitUsd: 10 });
  });
});

describe('requireUsageLeft', () => {
  it('lets a run through below the usage limit', () => {
    // Prepare
    const now = new Date('2026-11-22T12:00:00.000Z');

    // Act
    const act = () => requireUsageLeft(freeOwner, 9.999, now);

    // Assess
    expect(act).not.toThrow();
  });

  it('refuses a run at the usage limit with a 402 naming the amounts and the next period', () => {
    // Prepare
    const now = new Date('2026-11-22T12:00:00.000Z');

    // Act
    const atLimit = errorOf(() => requireUsageLeft(freeOwner, 10, now));
    const pastLimit = errorOf(() => requireUsageLeft(freeOwner, 12.5, now));

    // Assess
    expect(atLimit).toBeInstanceOf(UsageLimitExceededError);
    expect(atLimit).toMatchObject({ statusCode: 402, code: 'USAGE_LIMIT_EXCEEDED' });
    expect((atLimit as Error).message).toContain('$10 used of the $10');
    expect((atLimit as Error).message).toContain('free plan');
    expect((atLimit as Error).message).toContain('until 2026-12-01');
    expect((pastLimit as Error).message).toContain('$12.5 used of the $10');
  });

  it('names the first of January as the next period in December', () => {
    // Prepare
    const now = new Date('2026-12-31T23:59:59.999Z');

    // Act
    const error = errorOf(() => requireUsageLeft(freeOwner, 10, now));

    // Assess
    expect((error as Error).message).toContain('until 2027-01-01');
  });

  it('refuses every run under a usage limit of 0', () => {
    // Prepare
    const owner: LimitOwner = { ...freeOwner, usageLimitUsd: 0 };
    const now = new Date('2026-11-22T12:00:00.000Z');

    // Act
    const error = errorOf(() => requireUsageLeft(owner, 0, now));

    // Assess
    expect(error).toBeInstanceOf(UsageLimitExceededError);
  });
});

describe('admitBackgroundRun', () => {
  it("answers the user's owner while usage is left", async () => {
    // Prepare
    const { deps, store } = setup();
    await recordRunCost(store, { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' }, 6);

    // Act
    const owner = await admitBackgroundRun(deps, userOf({ id: 'u1' }));

    // Assess
    expect(owner).toEqual({ key: 'user#u1', plan: 'free', usageLimitUsd: 10 });
  });

  it('refuses runs once the month reaches the limit and admits them again in the next month', async () => {
    // Prepare
    const { deps, store, clock } = setup();
    const user = userOf({ id: 'u1' });
    await recordRunCost(store, { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' }, 6);
    await recordRunCost(store, { executionId: 'e2', userId: 'u1', startedAt: '2026-11-20T10:00:00.000Z' }, 4);

    // Act
    const inNovember = admitBackgroundRun(deps, user);
    await expect(inNovember).rejects.toBeInstanceOf(UsageLimitExceededError);
    await expect(inNovember).rejects.toThrow('until 2026-12-01');
    clock.set('2026-12-01T00:00:00.000Z');
    const inDecember = await admitBackgroundRun(deps, user);

    // Assess
    expect(inDecember).toEqual({ key: 'user#u1', plan: 'free', usageLimitUsd: 10 });
    expect((await store.read('user#u1', usagePeriodOf(deps.now()))).periodCostUsd).toBe(0);
  });

  it('lets runs through at once when the usage limit is raised', async () => {
    // Prepare
    const { deps, store } = setup();
    await recordRunCost(
      store,
      { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' },
      10,
    );
    await expect(admitBackgroundRun(deps, userOf({ id: 'u1' }))).rejects.toBeInstanceOf(
      UsageLimitExceededError,
    );
    const raised: LimitOwner = { ...freeOwner, usageLimitUsd: 20 };

    // Act
    const owner = await admitBackgroundRun(deps, userOf({ id: 'u1', usageLimitUsd: 20 }));
    const act = () => requireUsageLeft(raised, 10, deps.now());

    // Assess
    expect(owner).toEqual({ key: 'user#u1', plan: 'free', usageLimitUsd: 20 });
    expect(act).not.toThrow();
  });

  it("counts an organization member's runs against the organization's usage", async () => {
    // Prepare
    const { deps, store } = setup([organizationOf({ id: 'o1', plan: 'pro' })]);
    await recordRunCost(
      store,
      { executionId: 'e1', userId: 'u2', usageOwner: 'org#o1', startedAt: '2026-11-05T10:00:00.000Z' },
      100,
    );

    // Act
    const run = admitBackgroundRun(deps, userOf({ id: 'u1', organizationId: 'o1' }));

    // Assess
    await expect(run).rejects.toThrow('$100 used of the $100 this month allows on the pro plan');
  });
});

describe('recordRunCost', () => {
  it('adds the cost to the period the run started in, not the one it is recorded in', async () => {
    // Prepare
    const { deps, store, clock } = setup();
    clock.set('2026-12-01T00:00:05.000Z');

    // Act
    await recordRunCost(
      store,
      { executionId: 'e1', userId: 'u1', startedAt: '2026-11-30T23:59:59.000Z' },
      0.5,
    );

    // Assess
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(0.5);
    expect((await store.read('user#u1', usagePeriodOf(deps.now()))).periodCostUsd).toBe(0);
  });

  it('adds the cost to the usage owner when the run has one, else to its user', async () => {
    // Prepare
    const { store } = setup();
    const startedAt = '2026-11-05T10:00:00.000Z';

    // Act
    await recordRunCost(store, { executionId: 'e1', userId: 'u1', usageOwner: 'org#o1', startedAt }, 3);
    await recordRunCost(store, { executionId: 'e2', userId: 'u1', startedAt }, 2);

    // Assess
    expect((await store.read('org#o1', '2026-11')).periodCostUsd).toBe(3);
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(2);
  });

  it('does not call the store for a run that cost nothing', async () => {
    // Prepare
    const calls: unknown[][] = [];
    const store: Pick<LimitsStore, 'addRunCost'> = {
      addRunCost: async (...args) => {
        calls.push(args);
      },
    };

    // Act
    await recordRunCost(store, { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' }, 0);

    // Assess
    expect(calls).toEqual([]);
  });

  it('adds the cost of one execution once however often it is recorded', async () => {
    // Prepare
    const { store } = setup();
    const run = { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' };

    // Act
    await recordRunCost(store, run, 2);
    await recordRunCost(store, run, 2);

    // Assess
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(2);
  });

  it('adds only what was not counted when the run was admitted', async () => {
    // Prepare: a run whose base charge of $0.001 was counted with its token, then used a model
    const calls: unknown[][] = [];
    const store: Pick<LimitsStore, 'addRunCost'> = { addRunCost: async (...args) => void calls.push(args) };
    const run = { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z', chargedUsd: 0.001 };

    // Act
    await recordRunCost(store, run, 0.001);
    await recordRunCost(store, run, 0.0035);

    // Assess: nothing for the run that cost only its base charge
    expect(calls).toEqual([['user#u1', '2026-11', 'e1', 0.0025]]);
  });
});

describe('limitsBlock', () => {
  it('shows a fresh owner with full buckets and no cost', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const block = await limitsBlock(deps, freeOwner);

    // Assess
    expect(block).toEqual({
      workflowExecutionRateLimit: {
        sync: { requestsPerMinute: 60, maxBurst: 120, remaining: 120, resetAt: iso(t0) },
        async: { requestsPerMinute: 200, maxBurst: 400, remaining: 400, resetAt: iso(t0) },
      },
      usage: { currentPeriodCost: 0, limit: 10, plan: 'free', isExceeded: false },
    });
  });

  it('shows the tokens taken, the cost of the period and the limit reached', async () => {
    // Prepare
    const { deps, store } = setup();
    await takeMany(deps, freeOwner, 'sync', 3);
    await takeMany(deps, freeOwner, 'async', 1);
    await recordRunCost(
      store,
      { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' },
      10,
    );

    // Act
    const block = await limitsBlock(deps, freeOwner);

    // Assess
    expect(block).toEqual({
      workflowExecutionRateLimit: {
        sync: { requestsPerMinute: 60, maxBurst: 120, remaining: 117, resetAt: iso(t0 + 1000) },
        async: { requestsPerMinute: 200, maxBurst: 400, remaining: 399, resetAt: iso(t0 + 300) },
      },
      usage: { currentPeriodCost: 10, limit: 10, plan: 'free', isExceeded: true },
    });
  });
});

describe('usageLimitsOf', () => {
  it('shows a fresh owner unlimited with full buckets', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const view = await usageLimitsOf(deps, freeOwner, 'api');

    // Assess
    expect(view).toEqual({
      success: true,
      rateLimit: {
        sync: { isLimited: false, limit: 60, remaining: 120, resetAt: iso(t0) },
        async: { isLimited: false, limit: 200, remaining: 400, resetAt: iso(t0) },
        authType: 'api',
      },
      usage: { currentPeriodCost: 0, limit: 10, plan: 'free' },
    });
  });

  it('shows a bucket with no tokens left as limited', async () => {
    // Prepare
    const { deps, store } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);
    await takeMany(deps, freeOwner, 'async', 2);
    await recordRunCost(
      store,
      { executionId: 'e1', userId: 'u1', startedAt: '2026-11-05T10:00:00.000Z' },
      1.5,
    );

    // Act
    const view = await usageLimitsOf(deps, freeOwner, 'manual');

    // Assess
    expect(view).toEqual({
      success: true,
      rateLimit: {
        sync: { isLimited: true, limit: 60, remaining: 0, resetAt: iso(t0 + 1000) },
        async: { isLimited: false, limit: 200, remaining: 398, resetAt: iso(t0 + 300) },
        authType: 'manual',
      },
      usage: { currentPeriodCost: 1.5, limit: 10, plan: 'free' },
    });
  });
});

describe('usagePeriodOf', () => {
  it('gives the UTC calendar month of a moment', () => {
    // Prepare
    const lastMomentOfJanuary = '2026-01-31T23:59:59.999Z';

    // Act
    const period = usagePeriodOf(lastMomentOfJanuary);

    // Assess
    expect(period).toBe('2026-01');
    expect(usagePeriodOf(new Date('2026-02-01T00:00:00.000Z'))).toBe('2026-02');
  });
});

describe('admitOwner', () => {
  it('answers a refused take with its 429, the bucket kept for the headers', async () => {
    // Prepare
    const { deps } = setup();
    await takeMany(deps, freeOwner, 'sync', 120);

    // Act
    const result = await admitOwner(deps, freeOwner, 'sync', 0.001);

    // Assess
    expect(result.refusal).toMatchObject({ statusCode: 429, code: 'RATE_LIMIT_EXCEEDED' });
    expect(result.refusal?.headers).toEqual({ 'Retry-After': '1' });
    expect(result.admission.state.remaining).toBe(0);
  });

  it('answers a run past the usage limit with its 402, and gives its base charge back', async () => {
    // Prepare
    const { deps, store } = setup();
    const owner: LimitOwner = { ...freeOwner, usageLimitUsd: 0.001 };
    await admitOwner(deps, owner, 'sync', 0.001);

    // Act
    const result = await admitOwner(deps, owner, 'async', 0.001);

    // Assess
    expect(result.refusal).toMatchObject({ statusCode: 402, code: 'USAGE_LIMIT_EXCEEDED' });
    expect(result.admission.charged).toBeUndefined();
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(0.001);
  });

  it('charges nothing to an API call, and never refuses it for usage', async () => {
    const { deps, store } = setup();
    const result = await admitOwner(deps, { ...freeOwner, usageLimitUsd: 0 }, 'api', 0.001);
    expect(result.refusal).toBeUndefined();
    expect((await store.read('user#u1', '2026-11')).periodCostUsd).toBe(0);
  });
});
