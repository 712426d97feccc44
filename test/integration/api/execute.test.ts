import { describe, expect, it } from 'vitest';
import { block } from '../../../core/engine/builders';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { deployedWorkflow, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

describe('synchronous execution', () => {
  it('answers the sync result with output, metadata and trace spans', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(answer.body.output).toEqual({ shouted: 'ADA' });
    expect(answer.body.metadata.executionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.body.metadata.duration).toBeGreaterThanOrEqual(0);
    expect(answer.body.metadata.cost).toEqual({
      total: 0.001,
      tokens: { prompt: 0, completion: 0, total: 0 },
      models: {},
    });
    const root = answer.body.traceSpans[0];
    expect(root.type).toBe('workflow');
    expect(root.children.map((span: any) => span.blockId)).toEqual(['start', 'shout', 'respond']);
    expect(root.children[1]).toMatchObject({
      name: 'Shout',
      type: 'function',
      status: 'success',
      output: { result: 'ADA' },
    });
  });

  it('answers logs: one entry per executed block with name, type, start, end, duration, success and error', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const failing = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const failed = await tenant.call('POST', `/api/workflows/${failing}/execute`, { name: 'ada' });

    // Assess
    expect(answer.body.logs.map((log: { blockName: string }) => log.blockName)).toEqual([
      'Start',
      'Shout',
      'Respond',
    ]);
    const shout = answer.body.logs[1];
    expect(shout).toEqual({
      blockId: 'shout',
      blockName: 'Shout',
      blockType: 'function',
      startedAt: answer.body.traceSpans[0].children[1].startTime,
      endedAt: answer.body.traceSpans[0].children[1].endTime,
      durationMs: answer.body.traceSpans[0].children[1].duration,
      success: true,
    });
    expect(failed.body.logs[1]).toMatchObject({
      blockName: 'Shout',
      success: false,
      error: expect.stringContaining('no luck'),
    });
  });

  it('writes a log entry with trigger api, timing, cost and the deployed version', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      answer.body.metadata.executionId,
    );
    expect(entry).toMatchObject({
      workflowId: id,
      workspaceId: tenant.workspaceId,
      level: 'info',
      trigger: 'api',
      deploymentVersion: 1,
      files: null,
      cost: { total: 0.001, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
    });
    expect(entry?.executionData.finalOutput).toEqual({ shouted: 'ADA' });
    expect(entry?.executionData.traceSpans[0].type).toBe('workflow');
    expect(Date.parse(entry!.endedAt)).toBeGreaterThanOrEqual(Date.parse(entry!.startedAt));
  });

  it('answers the response block status and headers', async () => {
    const tenant = await service.get().newTenant('runner');
    const state = threeBlockGraph({ status: 201 });
    state.blocks.respond.config.headers = { 'x-made-by': 'workflow' };
    const id = await deployedWorkflow(tenant, state);
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-made-by')).toBe('workflow');
  });

  it('coerces input to the Start block types', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(
      tenant,
      threeBlockGraph({
        inputFormat: [{ name: 'n', type: 'number', required: true }],
        code: 'return <start.n> * 2;',
      }),
    );
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { n: '21' });
    expect(answer.body.output).toEqual({ shouted: 42 });
  });

  it('refuses a missing required input field with 400 naming it', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error).toContain('name');
  });

  it('refuses input of the wrong type with 400 naming the field', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(
      tenant,
      threeBlockGraph({ inputFormat: [{ name: 'age', type: 'number', required: true }], code: 'return 1;' }),
    );
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { age: 'old' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain('age');
  });

  it('refuses a number sent for a string field with 400 naming the field, instead of turning it into text', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 42 });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'name', message: 'Input field "name" must be a string' }],
    });
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);
    const response = await fetch(`${service.get().url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('INVALID_JSON');
  });

  it('refuses to run a workflow that is not deployed with 403', async () => {
    const tenant = await service.get().newTenant('runner');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Draft',
      state: threeBlockGraph(),
    });
    const answer = await tenant.call('POST', `/api/workflows/${body.data.id}/execute`, { name: 'x' });
    expect(answer.status).toBe(403);
    expect(answer.body.error).toContain('not deployed');
  });

  it('answers 404 for an unknown workflow and 401 without a key', async () => {
    const tenant = await service.get().newTenant('runner');
    expect((await tenant.call('POST', '/api/workflows/wf_missing/execute', {})).status).toBe(404);
    expect((await service.get().as('')('POST', '/api/workflows/wf_missing/execute', {})).status).toBe(401);
  });

  it('answers a failing run with 500 EXECUTION_ERROR, success false and the error, and logs it as error', async () => {
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: 'return missingThing.value;' }));
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'x' });
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ success: false, code: 'EXECUTION_ERROR' });
    expect(answer.body.error).toContain('Shout');
    expect(answer.body.error).toContain('missingThing');
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      answer.body.metadata.executionId,
    );
    expect(entry?.level).toBe('error');
  });

  it('stops a function that loops forever and fails the run', async () => {
    const tenant = await service.get().newTenant('runner');
    const state = threeBlockGraph({ code: 'while (true) {}' });
    state.blocks.shout.config.timeoutMs = 200;
    const id = await deployedWorkflow(tenant, state);
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'x' });
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatch(/timed out/i);
  });

  it('follows the condition branch that holds', async () => {
    const tenant = await service.get().newTenant('runner');
    const state = {
      blocks: {
        start: block('start', 'start', 'Start', { inputFormat: [{ name: 'n', type: 'number' }] }),
        check: block('check', 'condition', 'Check', {
          conditions: [
            { id: 'big', expression: '<start.n> > 100' },
            { id: 'other', expression: 'else' },
          ],
        }),
        big: block('big', 'response', 'Big', { data: { size: 'big' } }),
        small: block('small', 'response', 'Small', { data: { size: 'small' } }),
      },
      edges: [
        { id: 'e1', source: 'start', target: 'check', sourceHandle: 'source' },
        { id: 'e2', source: 'check', target: 'big', sourceHandle: 'condition-big' },
        { id: 'e3', source: 'check', target: 'small', sourceHandle: 'condition-other' },
      ],
      loops: {},
      parallels: {},
    };
    const id = await deployedWorkflow(tenant, state);
    expect((await tenant.call('POST', `/api/workflows/${id}/execute`, { n: 500 })).body.output).toEqual({
      size: 'big',
    });
    expect((await tenant.call('POST', `/api/workflows/${id}/execute`, { n: 5 })).body.output).toEqual({
      size: 'small',
    });
  });
});
