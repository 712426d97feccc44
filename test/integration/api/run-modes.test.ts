/** Sync runs that cannot finish in the sync budget, and runs by hand (trigger manual, drafts). */
import { describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { deployedWorkflow, threeBlockGraph, useLocalService } from '../../support/service';

// A short sync budget, so that a run over it takes seconds, not half a minute.
process.env.SYNC_BUDGET_MS = '3000';
const service = useLocalService();

function waits(...durationsInMs: number[]) {
  const blocks = [block('start', 'start', 'Start', { inputFormat: [] })];
  const edges = [];
  let previous = 'start';
  durationsInMs.forEach((durationMs, index) => {
    blocks.push(block(`w${index}`, 'wait', `Wait ${index}`, { durationMs }));
    edges.push(edge(previous, `w${index}`));
    previous = `w${index}`;
  });
  blocks.push(block('respond', 'response', 'Respond', { data: { done: true } }));
  edges.push(edge(previous, 'respond'));
  return graphOf(blocks, edges);
}

describe('a sync run over the sync budget', () => {
  it('answers 408 TIMEOUT and is logged as an error with the blocks that finished', async () => {
    // Prepare
    const tenant = await service.get().newTenant('slow');
    const id = await deployedWorkflow(tenant, waits(2_000, 2_000));

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    // Assess
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ success: false, code: 'TIMEOUT' });
    expect(answer.body.error).toContain('3 s');
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      answer.body.metadata.executionId,
    );
    expect(entry?.level).toBe('error');
    expect(entry?.executionData.traceSpans.map((span) => span.blockId)).toContain('w0');
  });

  it('answers 408 at the deadline even while a long block is still running', async () => {
    // Prepare: one block that outlasts the 3 s budget; the budget is only checked between blocks
    const tenant = await service.get().newTenant('slow');
    const code = 'const end = Date.now() + 5000; while (Date.now() < end) {} return <start.name>;';
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code }));

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess: the deadline's answer (a run that had ended would carry success and metadata)
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ error: expect.stringContaining('within the 3 s'), code: 'TIMEOUT' });
  });

  it('refuses before running a graph whose wait block alone is longer than the budget', async () => {
    // Prepare
    const tenant = await service.get().newTenant('slow');
    const id = await deployedWorkflow(tenant, waits(5_000));

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error).toContain('Wait block "Wait 0"');
    expect(answer.body.details[0].path).toBe('blocks.w0.config.durationMs');
  });

  it('runs the same graph asynchronously', async () => {
    // Prepare
    const tenant = await service.get().newTenant('slow');
    const id = await deployedWorkflow(tenant, waits(5_000));

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});
    const accepted = await fetch(`${service.get().url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'x-execution-mode': 'async' },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(accepted.status).toBe(202);
  });
});

describe('manual runs', () => {
  it('runs the deployed workflow like a sync execute, logged with trigger manual', async () => {
    // Prepare
    const tenant = await service.get().newTenant('manual');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.output).toEqual({ shouted: 'ADA' });
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      answer.body.metadata.executionId,
    );
    expect(entry).toMatchObject({ trigger: 'manual', level: 'info', deploymentVersion: 1 });
  });

  it('runs the saved, undeployed graph with draft: true', async () => {
    // Prepare
    const tenant = await service.get().newTenant('manual');
    const id = await deployedWorkflow(tenant);
    await tenant.call('PUT', `/api/workflows/${id}`, {
      state: threeBlockGraph({ code: 'return <start.name>.toLowerCase();' }),
    });

    // Act
    const deployed = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'AdA' } });
    const draft = await tenant.call('POST', `/api/workflows/${id}/run`, {
      input: { name: 'AdA' },
      draft: true,
    });

    // Assess
    expect(deployed.body.output).toEqual({ shouted: 'ADA' });
    expect(draft.status).toBe(200);
    expect(draft.body.output).toEqual({ shouted: 'ada' });
  });

  it('runs a workflow that was never deployed only as a draft', async () => {
    // Prepare
    const tenant = await service.get().newTenant('manual');
    const created = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Never deployed',
      state: threeBlockGraph(),
    });
    const id = created.body.data.id;

    // Act
    const deployedRun = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } });
    const draftRun = await tenant.call('POST', `/api/workflows/${id}/run`, {
      input: { name: 'ada' },
      draft: true,
    });

    // Assess
    expect(deployedRun.status).toBe(403);
    expect(draftRun.status).toBe(200);
    expect(draftRun.body.output).toEqual({ shouted: 'ADA' });
  });

  it("answers 404 for another tenant's workflow", async () => {
    const owner = await service.get().newTenant('owner');
    const stranger = await service.get().newTenant('stranger');
    const id = await deployedWorkflow(owner);
    const answer = await stranger.call('POST', `/api/workflows/${id}/run`, { draft: true });
    expect(answer.status).toBe(404);
  });
});
