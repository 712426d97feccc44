import { describe, expect, it } from 'vitest';
import { importFixture, runGraph } from './support';

describe('Sim loop container', () => {
  it.each([
    ['loop-for.json', [0, 10, 20]],
    ['loop-foreach.json', ['A0', 'B1', 'C2']],
    ['loop-while.json', [0, 1, 2]],
    ['loop-dowhile.json', ['ran 0']],
  ])('%s runs its body as Sim does', async (fixture, results) => {
    const { graph } = importFixture(fixture);

    const result = await runGraph(graph);

    expect(result.error).toBeUndefined();
    expect(graph.blocks.body.parentId).toBe('loop');
    expect(result.output).toEqual({ results: results.map((value) => ({ result: value, stdout: '' })) });
  });
});

describe('Sim parallel container', () => {
  it('count: one branch per count', async () => {
    const { graph } = importFixture('parallel-count.json');

    const result = await runGraph(graph);

    expect(result.output).toEqual({ results: [1, 2, 3].map((value) => ({ result: value, stdout: '' })) });
  });

  it('collection: one branch per item of a reference', async () => {
    const { graph } = importFixture('parallel-collection.json');

    const result = await runGraph(graph, { input: { items: [2, 3] } });

    expect(result.output).toEqual({ results: [4, 9].map((value) => ({ result: value, stdout: '' })) });
  });
});

describe('Sim nested containers', () => {
  it('a parallel inside a loop sees both the loop index and its own item', async () => {
    const { graph } = importFixture('nested-containers.json');

    const result = await runGraph(graph);

    expect(graph.blocks.inner.parentId).toBe('outer');
    expect(result.output).toEqual({
      grid: [
        {
          results: [
            { result: 10, stdout: '' },
            { result: 20, stdout: '' },
          ],
        },
        {
          results: [
            { result: 110, stdout: '' },
            { result: 120, stdout: '' },
          ],
        },
      ],
    });
  });
});

describe('Sim container results', () => {
  it("a block reading a container's results is told how they differ from Sim", () => {
    const { warnings } = importFixture('loop-for.json');

    expect(warnings).toEqual([
      {
        blockId: 'reply',
        message: expect.stringContaining(
          '<loop1.results> differs from Sim: there each iteration gives a list',
        ),
      },
    ]);
  });
});
