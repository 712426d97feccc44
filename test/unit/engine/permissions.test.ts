import { describe, expect, it } from 'vitest';
import { runToCompletion, startRun } from '../../../core/engine/run';
import type { ModelGateway, ModelRequest } from '../../../core/engine/types';
import type { AccessPolicy } from '../../../core/permissions/types';
import { block, contextOf, depsOf, edge, findSpan, graphOf, inProcessRunner, loaderOf } from './fixtures';

const policy = (restrictions: Partial<AccessPolicy>): AccessPolicy => ({
  groupId: 'pg_1',
  groupName: 'Contractors',
  ...restrictions,
});
const start = block('s', 'start', 'Start', { inputFormat: [{ name: 'provider', type: 'string' }] });

function modelsThatAnswer(): ModelGateway & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      return { content: 'ok', model: request.model, tokens: { prompt: 1, completion: 1, total: 2 } };
    },
  };
}

describe('access policy in the engine', () => {
  it('fails the run before any block runs when the graph holds a block type the group does not allow', async () => {
    // Prepare
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'First', { code: 'return 1' }),
        block('c', 'api', 'Call out', { url: 'https://example.com', method: 'GET' }),
      ],
      [edge('s', 'f'), edge('f', 'c')],
    );

    // Act
    const result = await runToCompletion(
      { ...contextOf(graph), policy: policy({ allowedBlocks: ['function'] }) },
      depsOf(runner),
    );

    // Assess
    expect(result.success).toBe(false);
    expect(result.error).toBe(
      'Block "Call out" (api): block type "api" is not allowed by permission group "Contractors" (allowed: function)',
    );
    expect(result.httpStatus).toBe(500);
    expect(runner.requests).toHaveLength(0);
  });

  it('runs the same graph to the end without a policy', async () => {
    const graph = graphOf([start, block('f', 'function', 'First', { code: 'return 1' })], [edge('s', 'f')]);
    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));
    expect(result.success).toBe(true);
  });

  it('refuses a provider inside a loop and one inside a parallel, naming block and provider', async () => {
    // Prepare
    const models = modelsThatAnswer();
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Each', { loopType: 'for', iterations: 2 }),
        block(
          'a',
          'agent',
          'Ask',
          { provider: 'anthropic', model: 'claude', userPrompt: 'hi' },
          { parentId: 'l' },
        ),
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
        block(
          'r',
          'router',
          'Pick',
          { provider: 'bedrock', model: 'm', prompt: 'x', routes: [] },
          { parentId: 'p' },
        ),
      ],
      [edge('s', 'l'), edge('l', 'a', 'loop-start-source'), edge('l', 'p', 'loop-end-source')],
    );

    // Act
    const result = await runToCompletion(
      { ...contextOf(graph), policy: policy({ allowedModelProviders: ['openai'] }) },
      depsOf(inProcessRunner(), undefined, { models }),
    );

    // Assess
    expect(result.success).toBe(false);
    expect(result.error).toContain(
      'Block "Ask" (agent) uses model provider "anthropic", which permission group "Contractors" does not allow (allowed: openai)',
    );
    expect(result.error).toContain('Block "Pick" (router) uses model provider "bedrock"');
    expect(models.requests).toHaveLength(0);
  });

  it('refuses a provider known only once resolved, and no error edge carries the run past it', async () => {
    // Prepare
    const models = modelsThatAnswer();
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('a', 'agent', 'Ask', { provider: '<start.provider>', model: 'm', userPrompt: 'hi' }),
        block('h', 'function', 'Handle', { code: 'return "handled"' }),
      ],
      [edge('s', 'a'), edge('a', 'h', 'error')],
    );

    // Act
    const result = await runToCompletion(
      {
        ...contextOf(graph, { provider: 'Anthropic' }),
        policy: policy({ allowedModelProviders: ['openai'] }),
      },
      depsOf(runner, undefined, { models }),
    );

    // Assess
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/^Block "Ask" \(agent\) uses model provider "anthropic"/);
    expect(findSpan(result.traceSpans, 'Ask')).toMatchObject({
      status: 'error',
      input: { provider: 'Anthropic' },
    });
    expect(models.requests).toHaveLength(0);
    expect(runner.requests).toHaveLength(0);
  });

  it('refuses a child workflow holding a block the group does not allow, even behind an error edge', async () => {
    // Prepare
    const runner = inProcessRunner();
    const child = graphOf(
      [block('cs', 'start', 'Start'), block('cc', 'api', 'Child call', { url: 'https://x.example' })],
      [edge('cs', 'cc')],
    );
    const graph = graphOf(
      [
        start,
        block('w', 'workflow', 'Sub', { workflowId: 'c' }),
        block('h', 'function', 'Handle', { code: 'return "handled"' }),
      ],
      [edge('s', 'w'), edge('w', 'h', 'error')],
    );

    // Act
    const result = await runToCompletion(
      { ...contextOf(graph), policy: policy({ allowedBlocks: ['workflow', 'function'] }) },
      depsOf(runner, undefined, { workflows: loaderOf({ c: child }) }),
    );

    // Assess
    expect(result.success).toBe(false);
    expect(result.error).toBe(
      'Child workflow c: Block "Child call" (api): block type "api" is not allowed by permission group "Contractors" (allowed: workflow, function)',
    );
    expect(findSpan(result.traceSpans, 'Sub')?.status).toBe('error');
    expect(runner.requests).toHaveLength(0);
  });

  it('keeps the policy in the checkpoint, so later steps in another process apply it too', () => {
    const graph = graphOf([start]);
    const restricted = policy({ allowedBlocks: ['function'] });
    const checkpoint = startRun({ ...contextOf(graph), policy: restricted });
    expect(JSON.parse(JSON.stringify(checkpoint)).context.policy).toEqual(restricted);
    expect(checkpoint.end).toBeUndefined();
  });
});
