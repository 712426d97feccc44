/**
 * What the limits cost on the embedded stack: the token a request draws (one conditional
 * UpdateItem of the user's item, which also answers the user, so it replaces the user read that
 * authentication made before limits existed), for a member of an organization the organization's
 * plan read as well, and the model-cost part of a run's usage added in Finalize. The baseline is
 * the API key lookup (one GetItem) that every key-authenticated request makes, on the same stack.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoIdentityStore } from '../adapters/dynamodb/identity-store';
import { DynamoLimitsStore } from '../adapters/dynamodb/limits-store';
import { hashApiKey } from '../core/identity/api-keys';
import { limitsConfigFrom } from '../core/limits/plans';
import { type LimitsDeps, limitOwnerOf, recordRunCost, takeToken } from '../core/limits/service';
import { applyEnv, startLocalEmulators } from '../local/emulators';
import { unreachableRateLimitsJson } from '../support/limits';

export interface LimitsBench {
  calls: number;
  apiKeyLookupP50InMs: number;
  tokenP50InMs: number;
  tokenP99InMs: number;
  organizationTokenP50InMs: number;
  runCostP50InMs: number;
}

async function p50AndP99(calls: number, call: (index: number) => Promise<unknown>) {
  const timesInMs: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = process.hrtime.bigint();
    await call(index);
    timesInMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  timesInMs.sort((a, b) => a - b);
  const at = (quantile: number) =>
    Number(timesInMs[Math.floor(quantile * (timesInMs.length - 1))].toFixed(3));
  return { p50: at(0.5), p99: at(0.99) };
}

export async function benchLimits(
  calls = Number(process.env.BENCH_LIMITS_CALLS ?? 2000),
): Promise<LimitsBench> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-limits-'));
  const stack = await startLocalEmulators({ dataDir });
  try {
    applyEnv(stack.env);
    const identity = DynamoIdentityStore.fromEnv();
    const deps: LimitsDeps = {
      store: DynamoLimitsStore.fromEnv(),
      organizations: identity,
      config: limitsConfigFrom({ RATE_LIMITS_JSON: unreachableRateLimitsJson }),
      now: () => new Date(),
    };
    const createdAt = new Date().toISOString();
    const user = {
      id: 'usr_bench',
      email: 'bench@example.com',
      name: 'Bench',
      plan: 'free' as const,
      createdAt,
    };
    await identity.createUser(user);
    await identity.putApiKey({
      id: 'key_bench',
      userId: user.id,
      name: 'b',
      prefix: 'svc_',
      hash: hashApiKey('svc_bench'),
      createdAt,
    });
    const organization = {
      id: 'org_bench',
      name: 'Bench',
      ownerId: user.id,
      plan: 'team' as const,
      createdAt,
    };
    await identity.createOrganization(organization, {
      organizationId: organization.id,
      userId: user.id,
      role: 'owner',
    });
    const member = {
      ...user,
      id: 'usr_member',
      email: 'member@example.com',
      organizationId: organization.id,
    };

    const lookup = await p50AndP99(calls, () => identity.findApiKeyByHash(hashApiKey('svc_bench')));
    const token = await p50AndP99(calls, async () => takeToken(deps, await limitOwnerOf(deps, user), 'sync'));
    const organizationToken = await p50AndP99(calls, async () =>
      takeToken(deps, await limitOwnerOf(deps, member), 'sync'),
    );
    const runCost = await p50AndP99(calls, (index) =>
      recordRunCost(
        deps.store,
        { executionId: `run-${index}`, userId: user.id, startedAt: createdAt },
        0.001,
      ),
    );
    return {
      calls,
      apiKeyLookupP50InMs: lookup.p50,
      tokenP50InMs: token.p50,
      tokenP99InMs: token.p99,
      organizationTokenP50InMs: organizationToken.p50,
      runCostP50InMs: runCost.p50,
    };
  } finally {
    await stack.stop();
    // The servers started later are child processes that inherit this environment.
    for (const name of Object.keys(stack.env)) delete process.env[name];
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printLimitsBench(result: LimitsBench): void {
  const ratio = (value: number) => `${(value / result.apiKeyLookupP50InMs).toFixed(1)}× the key lookup`;
  console.log(`\nLimits on the embedded stack, ${result.calls} calls each, one at a time`);
  console.log(
    `  token per request   p50 ${result.tokenP50InMs} ms, p99 ${result.tokenP99InMs} ms (${ratio(result.tokenP50InMs)}, ` +
      `p50 ${result.apiKeyLookupP50InMs} ms)`,
  );
  console.log(
    `  member of an org    p50 ${result.organizationTokenP50InMs} ms (${ratio(result.organizationTokenP50InMs)}; reads the organization's plan too)`,
  );
  console.log(
    `  model cost of a run p50 ${result.runCostP50InMs} ms in Finalize (${ratio(result.runCostP50InMs)}), ` +
      'only for runs that used a model: the base charge comes with the token',
  );
}
