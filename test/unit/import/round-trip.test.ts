import { describe, expect, it } from 'vitest';
import { block, edge, graphOf, loaderOf } from '../engine/fixtures';
import { everyBlockGraph } from './graphs';
import type { WorkflowGraph } from '../../../core/engine/types';
import { toSimExport } from '../../../core/import';
import {
  importFixture,
  type RunOptions,
  recordedHttp,
  recordedModels,
  runGraph,
  simImportErrors,
  viaSimExport,
} from './support';

const child = importFixture('workflow-child.json').graph;
const keepIds = { childWorkflowId: (ref: { id: string }) => (ref.id === '' ? undefined : ref.id) };

/** Fresh recorded answers for each run, so both runs of a round trip see the same. */
function recordedDeps(): RunOptions['deps'] {
  return {
    models: recordedModels({
      'gpt-4o': () => ({
        structured: { word: 'blue', route: 'high', reasoning: 'r' },
        content: '{"word":"blue"}',
      }),
      'gpt-4o-mini': () => ({
        structured: { category: 'billing', urgent: true, route: 'support', reasoning: 'r' },
      }),
      'claude-sonnet-4-5': () => ({ content: 'haiku' }),
      'claude-haiku-4-5': (request) => ({
        content: `label ${request.messages[0].content}`,
        structured: { route: 'r-tech', reasoning: 'r' },
      }),
    }),
    http: recordedHttp({
      'POST http://127.0.0.1:9/items/7?expand=owner&ref=7': { body: { name: 'Widget' } },
      'GET http://127.0.0.1:9/health': { body: { ok: true } },
      'GET http://127.0.0.1:9/customers/c-1': { body: { name: 'Ada' } },
      'GET http://127.0.0.1:9/things': { body: { things: [1, 2] } },
    }),
    workflows: loaderOf({ 'wf-child': child }),
  };
}

const environment = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GREETING: 'Hi', TOKEN: 't' };

const fixtureRuns: Array<[string, Record<string, unknown>]> = [
  ['trigger-starter.json', { name: 'Ada' }],
  ['trigger-start.json', { count: 2, label: 'x' }],
  ['trigger-api.json', { items: [1, 2] }],
  ['trigger-input.json', { topic: 't', flag: false }],
  ['trigger-manual.json', {}],
  ['function.json', { name: 'Ada' }],
  ['agent.json', { question: 'q' }],
  ['agent-legacy.json', { topic: 'tides' }],
  ['condition.json', { n: 7 }],
  ['router.json', { message: 'm' }],
  ['router-v2.json', { message: 'm' }],
  ['api.json', { id: 7 }],
  ['api-exported.json', {}],
  ['response.json', { name: 'Ada', age: 3 }],
  ['response-builder.json', { name: 'Ada', age: 3 }],
  ['wait.json', {}],
  ['workflow.json', { text: 'hey', payload: { text: 'first' } }],
  ['variables.json', { n: 4 }],
  ['note.json', {}],
  ['loop-for.json', {}],
  ['loop-foreach.json', {}],
  ['loop-while.json', {}],
  ['loop-dowhile.json', {}],
  ['parallel-count.json', {}],
  ['parallel-collection.json', { items: [1, 5] }],
  ['nested-containers.json', {}],
  ['error-edge.json', {}],
  ['mixed-support-desk.json', { ticket: 't', customerId: 'c-1' }],
  ['mixed-batch-scoring.json', { items: [{ name: 'a', value: 9 }] }],
];

describe('Sim fixture → our graph → Sim export → our graph', () => {
  it.each(fixtureRuns)('%s runs the same after the round trip', async (fixture, input) => {
    // Prepare
    const first = importFixture(fixture, {
      childWorkflowId: (ref) => (ref.id === 'source-child-id' ? 'wf-child' : undefined),
    });
    const { document, converted } = viaSimExport(first.graph, keepIds);
    // Act
    const before = await runGraph(first.graph, { input, environment, deps: recordedDeps() });
    const after = await runGraph(converted.graph, { input, environment, deps: recordedDeps() });
    // Assess
    expect(simImportErrors(JSON.stringify(document))).toEqual([]);
    expect(before.error).toBeUndefined();
    expect(after.error).toBeUndefined();
    expect(after.output).toEqual(before.output);
    expect(after.httpStatus).toBe(before.httpStatus);
    expect(after.responseHeaders).toEqual(before.responseHeaders);
  });
});

function everyBlockDeps(): RunOptions['deps'] {
  return {
    models: recordedModels({
      'gpt-4o': (request) =>
        request.responseFormat &&
        'properties' in request.responseFormat &&
        request.systemPrompt === 'Be brief.'
          ? { structured: { word: 'two' } }
          : { structured: { route: 'low', reasoning: 'small' } },
    }),
    http: recordedHttp({ 'GET http://127.0.0.1:9/things': { body: { things: [1, 2] } } }),
    workflows: loaderOf({ 'wf-child': child }),
  };
}

describe('our graph → Sim export → our graph', () => {
  it('the export passes the checks of Sim importer, and says what it left out', () => {
    const { document, warnings } = toSimExport({
      name: 'Every block',
      description: 'All of them',
      graph: everyBlockGraph(),
    });

    expect(simImportErrors(JSON.stringify(document))).toEqual([]);
    expect(simImportErrors(JSON.stringify({ data: document }))).toEqual([]);
    expect(warnings).toEqual([
      { blockId: 'doc', message: expect.stringContaining('no counterpart in Sim') },
      { blockId: 'reply', message: expect.stringContaining('<each.results> differs from Sim') },
      { blockId: 'reply', message: expect.stringContaining('<fan.results> differs from Sim') },
    ]);
    expect(document).toMatchObject({
      version: '1.0',
      state: { metadata: { name: 'Every block', description: 'All of them' } },
    });
  });

  it.each([[{ n: 3, tags: ['a', 'b'] }], [{ n: -1, tags: [] }]])(
    'runs the same after the round trip with input %j',
    async (input) => {
      const ours = everyBlockGraph();
      delete ours.blocks.doc;
      const { converted } = viaSimExport(ours, keepIds);

      const before = await runGraph(ours, { input, environment, deps: everyBlockDeps() });
      const after = await runGraph(converted.graph, { input, environment, deps: everyBlockDeps() });

      const typesOf = (graph: WorkflowGraph) =>
        Object.values(graph.blocks)
          .map((each) => `${each.id}:${each.type}:${each.parentId ?? ''}`)
          .sort();
      expect(typesOf(converted.graph)).toEqual(typesOf(ours));
      expect(before.error).toBeUndefined();
      expect(after.error).toBeUndefined();
      expect(after.output).toEqual(before.output);
      expect(after.httpStatus).toBe(before.httpStatus);
      expect(after.responseHeaders).toEqual(before.responseHeaders);
    },
  );

  it('keeps a key reference, and leaves a written-out key and a baseUrl out with warnings', () => {
    const graph = graphOf(
      [
        block('start', 'start', 'Start'),
        block('a', 'agent', 'A', {
          provider: 'openai',
          model: 'gpt-4o',
          userPrompt: 'hi',
          apiKey: 'set',
          baseUrl: 'http://127.0.0.1:8080/v1',
        }),
        block('b', 'agent', 'B', {
          provider: 'bedrock',
          model: 'anthropic.claude-3-haiku',
          userPrompt: 'hi',
          apiKey: '{{KEY}}',
        }),
      ],
      [edge('start', 'a'), edge('a', 'b')],
    );

    const { document, exportWarnings, converted } = viaSimExport(graph);

    expect(exportWarnings.map((warning) => [warning.blockId, warning.message])).toEqual([
      ['a', expect.stringContaining('baseUrl')],
      ['a', expect.stringContaining('API key is not exported')],
    ]);
    expect(JSON.stringify(document)).not.toContain('"set"');
    expect(converted.graph.blocks.b.config).toMatchObject({
      provider: 'bedrock',
      model: 'anthropic.claude-3-haiku',
      apiKey: '{{KEY}}',
    });
  });
});
