import { describe, expect, it } from 'vitest';
import { importFixture, recordedHttp, recordedModels, runGraph } from './support';

/** The recorded answers the support desk's runs get. */
function supportDeskDeps(urgent: boolean, customerStatus = 200) {
  return {
    models: recordedModels({
      'gpt-4o-mini': () => ({ structured: { category: 'billing', urgent }, content: '' }),
    }),
    http: recordedHttp({
      'GET http://127.0.0.1:9/customers/c-1': { status: customerStatus, body: { name: 'Ada' } },
    }),
  };
}

describe('mixed Sim workflow: support desk', () => {
  it('imports with warnings for the note and the emptied tables and key', () => {
    const { graph, name, description, warnings } = importFixture('mixed-support-desk.json');

    expect(name).toBe('Support desk');
    expect(description).toContain('Classifies');
    expect(graph.blocks.note).toBeUndefined();
    expect(warnings.map((warning) => warning.blockId)).toEqual(['note', 'classify', 'lookup', 'lookup']);
  });

  it('an urgent ticket raises the priority and answers with the customer', async () => {
    const { graph } = importFixture('mixed-support-desk.json');
    const deps = supportDeskDeps(true);

    const result = await runGraph(graph, { input: { ticket: 'Charged twice!', customerId: 'c-1' }, deps });

    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ category: 'billing', priority: 'high', customer: 'Ada' });
    expect(deps.models.requests[0]).toMatchObject({
      systemPrompt: 'Classify support tickets.',
      messages: [{ content: 'Charged twice!' }],
    });
  });

  it('a calm ticket keeps the starting priority', async () => {
    const { graph } = importFixture('mixed-support-desk.json');

    const result = await runGraph(graph, {
      input: { ticket: 'A question', customerId: 'c-1' },
      deps: supportDeskDeps(false),
    });

    expect(result.output).toEqual({ category: 'billing', priority: 'normal', customer: 'Ada' });
  });

  it('a failed lookup follows the error edge', async () => {
    const { graph } = importFixture('mixed-support-desk.json');

    const result = await runGraph(graph, {
      input: { ticket: 'A question', customerId: 'c-1' },
      deps: supportDeskDeps(false, 500),
    });

    expect(result.output).toEqual({ category: 'billing', customer: 'unknown' });
  });
});

describe('mixed Sim workflow: batch scoring', () => {
  function batchDeps(route: 'high' | 'low') {
    return {
      models: recordedModels({
        'claude-haiku-4-5': (request) => ({ content: `label for ${request.messages[0].content}` }),
        'gpt-4o': () => ({ structured: { route, reasoning: 'compared' } }),
      }),
    };
  }

  it('scores in parallel, summarises in a loop, routes, and waits before the high answer', async () => {
    const { graph } = importFixture('mixed-batch-scoring.json');
    const deps = batchDeps('high');

    const result = await runGraph(graph, {
      input: {
        items: [
          { name: 'a', value: 3 },
          { name: 'b', value: 4 },
        ],
      },
      environment: { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' },
      deps,
    });

    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({
      verdict: 'high',
      total: 70,
      lines: [
        { result: '1. label for Label a scored 30', stdout: '' },
        { result: '2. label for Label b scored 40', stdout: '' },
      ],
    });
    const router = deps.models.requests.find((request) => request.model === 'gpt-4o');
    expect(router?.messages[0].content).toBe('Total score 70, threshold 50');
    expect(result.traceSpans[0].children?.map((span) => span.name)).toContain('Cool Down');
  });

  it('the low route answers without waiting', async () => {
    const { graph } = importFixture('mixed-batch-scoring.json');

    const result = await runGraph(graph, {
      input: { items: [{ name: 'a', value: 1 }] },
      environment: { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' },
      deps: batchDeps('low'),
    });

    expect(result.output).toMatchObject({ verdict: 'low', total: 10 });
    expect(result.traceSpans[0].children?.map((span) => span.name)).not.toContain('Cool Down');
  });
});
