/** The client library meeting the service's rate limit: 429, Retry-After, and executeWithRetry waiting it out. */
import { describe, expect, it } from 'vitest';
import { type FetchLike, WorkflowClient, WorkflowClientError } from '../../sdk/src/index';
import { deployedWorkflow, type Tenant, useLocalService } from '../support/service';

// Sync runs: one token every 2 s, burst 1, so a second run at once is refused with Retry-After.
const unreachable = { requestsPerMinute: 600_000, maxBurst: 100_000 };
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { api: unreachable, sync: { requestsPerMinute: 30, maxBurst: 1 }, async: unreachable },
});

const service = useLocalService();

/** A client whose answers' statuses are noted. */
function countingClient(tenant: Tenant) {
  const statuses: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    const response = await globalThis.fetch(url, init as RequestInit);
    statuses.push(response.status);
    return response;
  };
  return {
    client: new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url, fetch }),
    statuses,
  };
}

/** Runs the workflow until the service refuses; answers the refusal. */
async function spendTheBurst(client: WorkflowClient, id: string): Promise<unknown> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const outcome = await client.execute(id, { input: { name: 'ada' } }).catch((error: unknown) => error);
    if (outcome instanceof WorkflowClientError) return outcome;
  }
  throw new Error('The service never refused');
}

describe('the rate limit through the client library', () => {
  it('raises RATE_LIMIT_EXCEEDED with status 429 and the Retry-After wait, also in getRateLimitInfo', async () => {
    // Prepare
    const tenant = await service.get().newTenant('retry');
    const id = await deployedWorkflow(tenant);
    const { client } = countingClient(tenant);

    // Act
    const error = (await spendTheBurst(client, id)) as WorkflowClientError;

    // Assess: Retry-After is whole seconds, at most the 2 s of one token
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect([1_000, 2_000]).toContain(error.retryAfterInMs);
    expect(client.getRateLimitInfo()).toMatchObject({
      limit: 30,
      remaining: 0,
      retryAfter: error.retryAfterInMs,
    });
  });

  it('executeWithRetry waits as long as Retry-After says, not its own shorter backoff, then succeeds', async () => {
    // Prepare: a backoff of a few ms, far shorter than the second the service asks for
    const tenant = await service.get().newTenant('retry');
    const id = await deployedWorkflow(tenant);
    const { client, statuses } = countingClient(tenant);
    await spendTheBurst(client, id);
    statuses.length = 0;

    // Act
    const result = await client.executeWithRetry(
      id,
      { name: 'ada' },
      {},
      { maxRetries: 3, initialDelay: 5, maxDelay: 10 },
    );

    // Assess: refused once, then served after the wait
    expect(result).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(statuses).toEqual([429, 200]);
  });

  it('executeWithRetry with maxRetries 0 raises the first 429', async () => {
    // Prepare
    const tenant = await service.get().newTenant('retry');
    const id = await deployedWorkflow(tenant);
    const { client, statuses } = countingClient(tenant);
    await spendTheBurst(client, id);
    statuses.length = 0;

    // Act
    const error = await client
      .executeWithRetry(id, { name: 'ada' }, {}, { maxRetries: 0 })
      .catch((caught: unknown) => caught);

    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(statuses).toEqual([429]);
  });
});
