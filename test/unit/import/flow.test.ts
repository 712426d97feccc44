import { describe, expect, it } from 'vitest';
import type { WorkflowGraph } from '../../../core/engine/types';
import { loaderOf } from '../engine/fixtures';
import { importFixture, runGraph } from './support';

describe('Sim condition block', () => {
  it.each([
    [20, 'big'],
    [7, 'medium'],
    [1, 'small'],
  ])('n = %i follows the %s branch (if, else if, else)', async (n, branch) => {
    const { graph } = importFixture('condition.json');

    const result = await runGraph(graph, { input: { n } });

    expect(result.output).toMatchObject({ result: branch });
  });
});

describe('Sim response block', () => {
  it('JSON mode: bare references keep their type, status and allowed headers are sent', async () => {
    const { graph, warnings } = importFixture('response.json');

    const result = await runGraph(graph, { input: { name: 'Ada', age: 36 } });

    expect(warnings).toEqual([]);
    expect(result.output).toEqual({ person: { name: 'Ada', age: 36 }, text: 'Hi Ada' });
    expect(result.httpStatus).toBe(201);
    expect(result.responseHeaders).toEqual({ 'cache-control': 'no-store', 'x-source': 'sim' });
  });

  it('builder mode: fields typed as Sim types them', async () => {
    const { graph, warnings } = importFixture('response-builder.json');

    const result = await runGraph(graph, { input: { name: 'Ada', age: 36 } });

    expect(warnings).toEqual([
      { blockId: 'reply', message: expect.stringContaining('(headers) was emptied') },
    ]);
    expect(result.output).toEqual({
      name: 'Ada',
      age: 36,
      limit: 10,
      active: true,
      meta: { source: 'sim' },
      tags: ['a', 'b'],
    });
    expect(result.httpStatus).toBe(200);
  });

  it('an error edge: the failing block follows it with its error', async () => {
    const { graph } = importFixture('error-edge.json');

    const result = await runGraph(graph);

    expect(result.httpStatus).toBe(502);
    expect(result.output).toEqual({ failed: expect.stringContaining('broken') });
  });
});

describe('Sim wait block', () => {
  it('value and unit become milliseconds', async () => {
    const { graph } = importFixture('wait.json');

    const result = await runGraph(graph);

    expect(graph.blocks.wait.config).toEqual({ durationMs: 2000 });
    expect(result.output).toMatchObject({ result: 'done after 2000' });
  });
});

describe('Sim child workflow blocks', () => {
  const child: WorkflowGraph = importFixture('workflow-child.json').graph;

  it('a child the caller maps runs, with its input from a reference or an input mapping', async () => {
    const asked: Array<{ id: string; name?: string }> = [];
    const { graph, warnings } = importFixture('workflow.json', {
      childWorkflowId: (ref) => {
        asked.push(ref);
        return ref.id === 'source-child-id' ? 'wf-child' : undefined;
      },
    });

    const result = await runGraph(graph, {
      input: { text: 'hey', payload: { text: 'first' } },
      deps: { workflows: loaderOf({ 'wf-child': child }) },
    });

    expect(warnings).toEqual([]);
    expect(asked).toEqual([
      { id: 'source-child-id', name: 'Shout Child' },
      { id: 'source-child-id', name: 'Shout Mapped' },
    ]);
    expect(graph.blocks.mapped.config).toEqual({ workflowId: 'wf-child', input: { text: '<start.text>' } });
    expect(result.error).toBeUndefined();
    const spans = result.traceSpans[0].children ?? [];
    expect(spans.find((span) => span.name === 'Shout Child')?.output).toMatchObject({
      success: true,
      result: { result: 'FIRST' },
    });
    expect(result.output).toMatchObject({ success: true, result: { result: 'HEY' } });
  });

  it('a child the caller cannot map is a warning, and the run says so', async () => {
    const { graph, warnings } = importFixture('workflow.json');

    const result = await runGraph(graph, { input: { text: 'hey' }, deps: { workflows: loaderOf({}) } });

    expect(warnings.map((warning) => warning.blockId)).toEqual(['child', 'mapped']);
    expect(warnings[0].message).toContain('"source-child-id" is not in this workspace');
    expect(result.success).toBe(false);
  });
});

describe('Sim variables', () => {
  it('workflow variables start with their values, and a variables block changes them', async () => {
    const { graph } = importFixture('variables.json');

    const result = await runGraph(graph, { input: { n: 5 } });

    expect(result.error).toBeUndefined();
    const spans = result.traceSpans[0].children ?? [];
    expect(spans.find((span) => span.name === 'Before')?.output).toMatchObject({
      result: { counter: 1, label: 'start', mode: 'fast' },
    });
    expect(result.output).toMatchObject({ result: { counter: 6, label: 'after 5' } });
  });
});

describe('Sim note block', () => {
  it('is dropped with a warning', async () => {
    const { graph, warnings } = importFixture('note.json');

    const result = await runGraph(graph);

    expect(graph.blocks.note).toBeUndefined();
    expect(warnings).toEqual([{ blockId: 'note', message: expect.stringContaining('is dropped') }]);
    expect(result.output).toMatchObject({ result: 'ok' });
  });
});
