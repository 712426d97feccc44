import { describe, expect, it } from 'vitest';
import { runToCompletion } from '../../../core/engine/run';
import type { Block, Edge } from '../../../core/engine/types';
import { block, contextOf, depsOf, edge, findSpan, graphOf, inProcessRunner } from './fixtures';

const start = block('s', 'start', 'Start');

/** start → b1 → … → bN, each block made by `make(i, previousName)`. */
function chain(length: number, make: (index: number, previous: string) => Block) {
  const blocks: Block[] = [start];
  const edges: Edge[] = [];
  let previous = 's';
  for (let index = 1; index <= length; index++) {
    const next = make(index, previous === 's' ? 'start' : `b${index - 1}`);
    blocks.push(next);
    edges.push(edge(previous, next.id));
    previous = next.id;
  }
  return graphOf(blocks, edges);
}

describe('scale', () => {
  it('runs a parallel of 100 branches with every result in order', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 100 }),
        block('b', 'function', 'Branch', { code: 'return <parallel.index> * 2' }, { parentId: 'p' }),
      ],
      [edge('s', 'p')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    const results = (result.output as { results: Array<{ result: number }> }).results;
    expect(results.map((entry) => entry.result)).toEqual(
      Array.from({ length: 100 }, (_, index) => index * 2),
    );
    expect(runner.maxInFlight).toBe(20);
    expect(findSpan(result.traceSpans, 'Fan')?.children).toHaveLength(100);
  });

  it('runs a loop of 1,000 iterations', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 1000 }),
        block('b', 'function', 'Body', { code: 'return <loop.index> + 1' }, { parentId: 'l' }),
        block('t', 'function', 'Sum', {
          code: 'return <loop.results>.reduce((sum, entry) => sum + entry.result, 0)',
        }),
      ],
      [edge('s', 'l'), edge('l', 't')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.output).toEqual({ result: (1000 * 1001) / 2, stdout: '' });
    expect(findSpan(result.traceSpans, 'Loop')?.children).toHaveLength(1000);
  });

  it('runs a chain of 200 blocks, each reading the one before', async () => {
    const graph = chain(200, (index, previous) =>
      block(`b${index}`, 'function', `b${index}`, {
        code: previous === 'start' ? 'return 1' : `return <${previous}.result> + 1`,
      }),
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.output).toEqual({ result: 200, stdout: '' });
    expect(result.traceSpans[0].children).toHaveLength(201);
  });

  it('runs a chain of 800 blocks, each reading the one before (its cost per block is a bench figure)', async () => {
    const graph = chain(800, (index, previous) =>
      block(`b${index}`, 'variables', `b${index}`, {
        assignments: [{ name: 'last', value: previous === 'start' ? 1 : `<${previous}.last>` }],
      }),
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.success).toBe(true);
    expect(result.traceSpans[0].children).toHaveLength(801);
  });
});
