/**
 * API Gateway's integration timeout as the local server keeps it: a non-streaming route that has
 * not answered in time is answered 504 naming the timeout (shortened here from 29 s to 1.5 s, so
 * that a run of 5 s is past it); the execute route streams, and is not held to it.
 */
import { describe, expect, it } from 'vitest';
import { draftWorkflow, request, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService({ integrationTimeoutInMs: 1_500 });

/** A function block that keeps its run busy for 5 s. */
const slowCode = 'const until = Date.now() + 5000; while (Date.now() < until) {} return 1;';

describe("API Gateway's integration timeout, locally", () => {
  it('answers 504 naming the timeout when a non-streaming route runs past it', async () => {
    // Prepare
    const tenant = await service.get().newTenant('slow');
    const id = await draftWorkflow(tenant, threeBlockGraph({ code: slowCode, inputFormat: [] }));

    // Act
    const answer = await request(service.get().url, 'POST', `/api/workflows/${id}/run`, {
      headers: { 'x-api-key': tenant.apiKey },
      body: { draft: true },
    });

    // Assess
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({
      error: "The route did not answer within API Gateway's integration timeout of 1.5 s",
      code: 'TIMEOUT',
    });
  });

  it('answers a quick route as usual', async () => {
    // Act
    const answer = await request(service.get().url, 'GET', '/api/health');

    // Assess
    expect(answer.status).toBe(200);
  });
});
