import { describe, expect, it } from 'vitest';
import { RunsInProgressLimitError, ValidationError } from '../../../core/errors';
import type { User } from '../../../core/identity/types';
import { limitsConfigFrom } from '../../../core/limits/plans';
import { type LimitsDeps, usagePeriodOf } from '../../../core/limits/service';
import { admitFire, admitRun, type RunAdmissionDeps, type RunTicket } from '../../../core/runs/admission';
import type { ExecutionRequest } from '../../../core/runs/types';
import { InMemoryLimitsStore, InMemoryRunSlotStore } from '../../support/in-memory-limits';
import { runState } from '../../support/runs';

const t0 = Date.parse('2026-11-22T12:00:00.000Z');
const period = usagePeriodOf(new Date(t0));
const baseChargeUsd = 0.001;

const user = (fields: Partial<User> = {}): User => ({
  id: 'usr_1',
  email: 'ada@example.com',
  name: 'Ada',
  plan: 'free',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});

/** The admission protocol on in-memory limits and slots, with a fake clock at `t0`. */
function setup(rateLimitsJson?: string) {
  let clockInMs = t0;
  const store = new InMemoryLimitsStore();
  const slots = new InMemoryRunSlotStore();
  const limits: LimitsDeps = {
    store,
    organizations: { getOrganization: async () => undefined },
    config: limitsConfigFrom({ RATE_LIMITS_JSON: rateLimitsJson }),
    now: () => new Date(clockInMs),
  };
  const deps: RunAdmissionDeps = { limits, slots, baseChargeUsd };
  const costOf = async (ownerKey = 'user#usr_1') => (await store.read(ownerKey, period)).periodCostUsd;
  const advance = (ms: number) => {
    clockInMs += ms;
  };
  return { deps, store, slots, costOf, advance };
}

let runs = 0;
/** Steps that prepare a run of workspace `ws_1` and record what happened. */
function steps(overrides: { prepareFails?: Error; startFails?: Error; mode?: 'sync' | 'async' } = {}) {
  const seen: { usage?: unknown; started?: ExecutionRequest } = {};
  return {
    seen,
    prepare: async (usage: { owner: string; chargedUsd: number }) => {
      seen.usage = usage;
      if (overrides.prepareFails) throw overrides.prepareFails;
      runs++;
      return runState({
        executionId: `exec-${runs}`,
        mode: overrides.mode ?? 'async',
        usageOwner: usage.owner,
      });
    },
    start: async (request: ExecutionRequest) => {
      if (overrides.startFails) throw overrides.startFails;
      seen.started = request;
      return 'started' as const;
    },
  };
}

describe('admitRun', () => {
  it('takes a token with the base charge, prepares, takes a slot and starts the run, keeping the charge', async () => {
    // Prepare
    const { deps, slots, costOf } = setup();
    const ticket: RunTicket = {};
    const run = steps();

    // Act
    const outcome = await admitRun(deps, ticket, run, { drawFor: user() });

    // Assess
    expect(outcome).toBe('started');
    expect(run.seen.usage).toEqual({ owner: 'user#usr_1', chargedUsd: baseChargeUsd });
    expect(slots.held('ws_1')).toEqual([run.seen.started?.executionId]);
    expect(await costOf()).toBe(baseChargeUsd);
    expect(ticket.admission).toMatchObject({ bucket: 'async', admitted: true });
    expect(ticket.admission?.charged).toBeUndefined();
  });

  it('uses the token its request took at authentication when it draws none itself', async () => {
    // Prepare
    const { deps, store, slots, costOf } = setup();
    const taken: RunTicket = {};
    await admitRun(deps, taken, steps(), { drawFor: user() });
    const writesBefore = store.writes;
    const ticket: RunTicket = { owner: taken.owner, admission: { ...taken.admission!, charged: undefined } };

    // Act
    await admitRun(deps, ticket, steps());

    // Assess
    expect(store.writes).toBe(writesBefore);
    expect(slots.held('ws_1')).toHaveLength(2);
    expect(await costOf()).toBe(baseChargeUsd);
  });

  it('gives the charge back when the preparation refuses the run, and takes no slot', async () => {
    // Prepare
    const { deps, slots, costOf } = setup();
    const ticket: RunTicket = {};
    const run = steps({ prepareFails: new ValidationError('Missing input "name"') });

    // Act
    const refused = admitRun(deps, ticket, run, { drawFor: user() });

    // Assess
    await expect(refused).rejects.toThrow('Missing input "name"');
    expect(await costOf()).toBe(0);
    expect(ticket.admission?.charged).toBeUndefined();
    expect(slots.held('ws_1')).toEqual([]);
    expect(run.seen.started).toBeUndefined();
  });

  it('charges nothing and prepares nothing when the rate refuses the run', async () => {
    // Prepare
    const { deps, slots, costOf } = setup('{"free": {"async": {"requestsPerMinute": 1, "maxBurst": 1}}}');
    await admitRun(deps, {}, steps(), { drawFor: user() });
    const ticket: RunTicket = {};
    const run = steps();

    // Act
    const refused = admitRun(deps, ticket, run, { drawFor: user() });

    // Assess
    await expect(refused).rejects.toMatchObject({ statusCode: 429, code: 'RATE_LIMIT_EXCEEDED' });
    expect(await costOf()).toBe(baseChargeUsd);
    expect(ticket.admission).toMatchObject({ admitted: false });
    expect(run.seen.usage).toBeUndefined();
    expect(slots.held('ws_1')).toHaveLength(1);
  });

  it('refuses a run past the usage limit with 402, its charge given back', async () => {
    // Prepare
    const { deps, costOf } = setup();
    const run = steps();

    // Act
    const refused = admitRun(deps, {}, run, { drawFor: user({ usageLimitUsd: 0 }) });

    // Assess
    await expect(refused).rejects.toMatchObject({ statusCode: 402, code: 'USAGE_LIMIT_EXCEEDED' });
    expect(await costOf()).toBe(0);
    expect(run.seen.usage).toBeUndefined();
  });

  it('refuses a run of a workspace at its cap with 429 naming it, gives its charge back, and admits it once a run ends', async () => {
    // Prepare
    const { deps, slots, costOf } = setup('{"free": {"runsInProgress": 2}}');
    await admitRun(deps, {}, steps(), { drawFor: user() });
    await admitRun(deps, {}, steps(), { drawFor: user() });
    const ticket: RunTicket = {};
    const run = steps();

    // Act
    const refused = await admitRun(deps, ticket, run, { drawFor: user() }).catch((error: unknown) => error);
    await slots.remove('ws_1', slots.held('ws_1')[0]);
    const afterOneEnded = await admitRun(deps, {}, steps(), { drawFor: user() });

    // Assess
    expect(refused).toBeInstanceOf(RunsInProgressLimitError);
    expect(refused).toMatchObject({ statusCode: 429, code: 'CONCURRENCY_LIMIT_EXCEEDED' });
    expect((refused as Error).message).toContain(
      'this workspace has 2 runs in progress, the cap of the free plan',
    );
    expect(run.seen.started).toBeUndefined();
    expect(ticket.admission?.charged).toBeUndefined();
    expect(await costOf()).toBe(3 * baseChargeUsd);
    expect(afterOneEnded).toBe('started');
  });

  it("counts another workspace's runs apart", async () => {
    // Prepare
    const { deps, slots } = setup('{"free": {"runsInProgress": 1}}');
    await admitRun(deps, {}, steps(), { drawFor: user() });
    const other = {
      ...steps(),
      prepare: async () => runState({ executionId: 'exec-other', workspaceId: 'ws_2', mode: 'async' }),
    };

    // Act
    const outcome = await admitRun(deps, {}, other, { drawFor: user() });

    // Assess
    expect(outcome).toBe('started');
    expect(slots.held('ws_2')).toEqual(['exec-other']);
  });

  it('prunes a slot whose run outlived its lifetime (its Finalize lost) and admits in its place', async () => {
    // Prepare
    const { deps, slots, advance } = setup('{"free": {"runsInProgress": 1}}');
    await admitRun(deps, {}, steps({ mode: 'sync' }), { drawFor: user() });
    const lost = slots.held('ws_1')[0];
    advance(5 * 60_000);

    // Act
    await admitRun(deps, {}, steps(), { drawFor: user() });

    // Assess
    expect(slots.held('ws_1')).toHaveLength(1);
    expect(slots.held('ws_1')).not.toContain(lost);
  });

  it('keeps the charge of a run whose start failed, frees the slot of an async one, and keeps a sync one', async () => {
    // Prepare
    const { deps, slots, costOf } = setup();
    const failing = new Error('queue down');

    // Act
    const asyncRun = admitRun(deps, {}, steps({ startFails: failing }), { drawFor: user() });
    await expect(asyncRun).rejects.toBe(failing);
    const syncRun = admitRun(deps, {}, steps({ startFails: failing, mode: 'sync' }), { drawFor: user() });
    await expect(syncRun).rejects.toBe(failing);

    // Assess
    expect(await costOf()).toBe(2 * baseChargeUsd);
    expect(slots.held('ws_1')).toHaveLength(1);
  });
});

describe('admitFire', () => {
  it("answers the owner of a schedule's run and takes its slot, without a token or a charge", async () => {
    // Prepare
    const { deps, store, slots, costOf } = setup();
    const identity = { getUser: async (id: string) => (id === 'usr_1' ? user() : undefined) };

    // Act
    const owner = await admitFire({ ...deps, identity }, 'usr_1', {
      workspaceId: 'ws_1',
      executionId: 'sched_1',
    });
    const again = await admitFire({ ...deps, identity }, 'usr_1', {
      workspaceId: 'ws_1',
      executionId: 'sched_1',
    });

    // Assess
    expect(owner).toBe('user#usr_1');
    expect(again).toBe('user#usr_1');
    expect(slots.held('ws_1')).toEqual(['sched_1']);
    expect(store.writes).toBe(0);
    expect(await costOf()).toBe(0);
  });

  it('refuses a fire of a workspace at its cap, and of a user that is gone', async () => {
    // Prepare
    const { deps } = setup('{"free": {"runsInProgress": 1}}');
    const identity = { getUser: async (id: string) => (id === 'usr_1' ? user() : undefined) };
    await admitFire({ ...deps, identity }, 'usr_1', { workspaceId: 'ws_1', executionId: 'sched_1' });

    // Act
    const atCap = admitFire({ ...deps, identity }, 'usr_1', { workspaceId: 'ws_1', executionId: 'sched_2' });
    const gone = admitFire({ ...deps, identity }, 'usr_gone', {
      workspaceId: 'ws_1',
      executionId: 'sched_3',
    });

    // Assess
    await expect(atCap).rejects.toBeInstanceOf(RunsInProgressLimitError);
    await expect(gone).rejects.toThrow('User usr_gone of a schedule is missing');
  });
});
