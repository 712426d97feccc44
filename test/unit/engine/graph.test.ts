import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors';
import { normalizeName, validatedGraph, validateGraph } from '../../../core/engine/graph';
import type { WorkflowGraph } from '../../../core/engine/types';
import { block, edge, graphOf } from './fixtures';

function detailsOf(graph: WorkflowGraph): Array<{ path: string; message: string }> {
  try {
    validateGraph(graph);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe('Invalid workflow graph');
    return (error as ValidationError).details ?? [];
  }
  throw new Error('the graph was accepted');
}

function pathsOf(graph: WorkflowGraph): string[] {
  return detailsOf(graph).map((detail) => detail.path);
}

const start = block('s', 'start', 'Start');

describe('normalizeName', () => {
  it('lowercases and removes spaces', () => {
    expect(normalizeName('My Fancy  Block')).toBe('myfancyblock');
  });
});

describe('validateGraph', () => {
  it('fills defaults and derives loops and parallels from container blocks', () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop 1', { loopType: 'for', iterations: 3 }),
        block('f', 'function', 'Body', { code: 'return <loop.index>' }, { parentId: 'l' }),
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
        block('g', 'function', 'Branch', { code: 'return 1' }, { parentId: 'p', enabled: false }),
      ],
      [
        edge('s', 'l'),
        edge('l', 'f', 'loop-start-source'),
        edge('l', 'p', 'loop-end-source'),
        edge('p', 'g'),
      ],
    );

    const normalized = validateGraph(graph);

    expect(normalized.blocks.s).toMatchObject({ enabled: true, parentId: null });
    expect(normalized.blocks.f).toMatchObject({ enabled: true, parentId: 'l' });
    expect(normalized.blocks.g.enabled).toBe(false);
    expect(normalized.loops).toEqual({ l: { id: 'l', nodes: ['f'], loopType: 'for', iterations: 3 } });
    expect(normalized.parallels).toEqual({ p: { id: 'p', nodes: ['g'], parallelType: 'count', count: 2 } });
  });

  it('leaves the graph it was given unchanged', () => {
    const graph = graphOf([start, block('f', 'function', 'Shout', { code: 'return 1' })], [edge('s', 'f')]);
    const copy = structuredClone(graph);

    validateGraph(graph);

    expect(graph).toEqual(copy);
  });

  it('reports an unknown block type at the block type', () => {
    const graph = graphOf([start, block('x', 'teleport', 'Beam')]);

    expect(detailsOf(graph)).toEqual([
      { path: 'blocks.x.type', message: expect.stringContaining('"teleport"') },
    ]);
  });

  it('reports a block whose id differs from its key', () => {
    const graph = graphOf([start]);
    graph.blocks.other = block('different', 'function', 'Shout');

    expect(pathsOf(graph)).toEqual(['blocks.other.id']);
  });

  it('reports edges whose source or target block does not exist', () => {
    const graph = graphOf([start], [edge('s', 'ghost'), edge('nobody', 's')]);

    expect(pathsOf(graph)).toEqual(['edges[0].target', 'edges[1].source']);
  });

  it('reports a cycle outside a loop at an edge of the cycle', () => {
    const graph = graphOf(
      [start, block('a', 'function', 'A'), block('b', 'function', 'B')],
      [edge('s', 'a'), edge('a', 'b'), edge('b', 'a')],
    );

    expect(detailsOf(graph)).toEqual([
      { path: 'edges[1].target', message: 'Cycle outside a loop: A → B → A' },
    ]);
  });

  it('reports a cycle inside a loop body, since the loop itself does the repeating', () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'while', condition: 'true' }),
        block('a', 'function', 'A', {}, { parentId: 'l' }),
        block('b', 'function', 'B', {}, { parentId: 'l' }),
      ],
      [edge('s', 'l'), edge('l', 'a', 'loop-start-source'), edge('a', 'b'), edge('b', 'a')],
    );

    expect(detailsOf(graph)).toEqual([
      {
        path: 'edges[2].target',
        message: expect.stringContaining('Cycle inside the body of loop "Loop": A → B → A'),
      },
    ]);
  });

  it('reports container settings that cannot run, written out in the config', () => {
    const graph = graphOf([
      start,
      block('l1', 'loop', 'Spin', { loopType: 'forever' }),
      block('l2', 'loop', 'Many', { loopType: 'for', iterations: 1001 }),
      block('l3', 'loop', 'Until', { loopType: 'while' }),
      block('p1', 'parallel', 'Fan', { parallelType: 'count', count: 'two' }),
      block('p2', 'parallel', 'Split', { parallelType: 'everything' }),
      block('w', 'wait', 'Pause', { durationMs: -5 }),
      block('c', 'workflow', 'Child', {}),
    ]);

    expect(detailsOf(graph)).toEqual([
      { path: 'blocks.l1.config.loopType', message: expect.stringContaining('Unknown loop type "forever"') },
      {
        path: 'blocks.l2.config.iterations',
        message: 'Loop iterations is 1001, more than the limit of 1000',
      },
      { path: 'blocks.l3.config.condition', message: 'A while loop needs a condition' },
      { path: 'blocks.p1.config.count', message: 'Parallel count must be a whole number of at least 0' },
      { path: 'blocks.p2.config.parallelType', message: expect.stringContaining('"everything"') },
      { path: 'blocks.w.config.durationMs', message: expect.stringContaining('at least 0') },
      { path: 'blocks.c.config.workflowId', message: 'Workflow block needs a workflowId' },
    ]);
  });

  it('checks literal iteration counts against the limits it is given and leaves references to run time', () => {
    const graph = graphOf([
      start,
      block('l1', 'loop', 'Many', { loopType: 'for', iterations: '20' }),
      block('l2', 'loop', 'Referenced', { loopType: 'for', iterations: '<start.n>' }),
    ]);

    expect(() => validateGraph(graph)).not.toThrow();
    expect(() => validateGraph(graph, { limits: { maxLoopIterations: 10 } })).toThrow(ValidationError);
  });

  it('reports names that are equal once normalized', () => {
    const graph = graphOf([start, block('a', 'function', 'Shout Out'), block('b', 'function', 'shoutout')]);

    expect(detailsOf(graph)).toEqual([
      { path: 'blocks.b.name', message: expect.stringContaining('already used') },
    ]);
  });

  it('reports a workflow without a start block', () => {
    const graph = graphOf([block('f', 'function', 'Shout')]);

    expect(pathsOf(graph)).toEqual(['blocks']);
  });

  it('reports every start block after the first', () => {
    const graph = graphOf([start, block('t', 'start', 'Trigger')]);

    expect(detailsOf(graph)).toEqual([
      { path: 'blocks.t.type', message: 'The workflow has more than one start block' },
    ]);
  });

  it('reports a reference to a block that does not exist, with the config path', () => {
    const graph = graphOf([
      start,
      block('f', 'function', 'Shout', { code: 'return <ghost.result>' }),
      block('c', 'condition', 'Check', { conditions: [{ id: 'if', expression: '<phantom.value> > 1' }] }),
    ]);

    expect(detailsOf(graph)).toEqual([
      { path: 'blocks.f.config.code', message: 'Reference <ghost.result> names no block of this workflow' },
      {
        path: 'blocks.c.config.conditions[0].expression',
        message: expect.stringContaining('<phantom.value>'),
      },
    ]);
  });

  it('accepts references to blocks by any spelling of their name and to the special roots', () => {
    const graph = graphOf([
      start,
      block('f', 'function', 'Shout Out', { code: 'return 1' }),
      block('r', 'response', 'Reply', {
        data: {
          a: '<SHOUTOUT.result>',
          b: '<start.topic> <loop.index> <parallel.currentItem> <variable.count>',
          html: '<div class="x"><b>bold</b></div> and a < b',
        },
      }),
    ]);

    expect(() => validateGraph(graph)).not.toThrow();
  });

  it('reports a parent that is not a container or does not exist', () => {
    const graph = graphOf([
      start,
      block('f', 'function', 'Shout', {}, { parentId: 's' }),
      block('g', 'function', 'Whisper', {}, { parentId: 'ghost' }),
    ]);

    expect(pathsOf(graph)).toEqual(['blocks.f.parentId', 'blocks.g.parentId']);
  });

  it('reports an edge that crosses the boundary of a container', () => {
    const graph = graphOf(
      [start, block('l', 'loop', 'Loop'), block('a', 'function', 'Inside', {}, { parentId: 'l' })],
      [edge('s', 'a')],
    );

    expect(detailsOf(graph)).toEqual([
      { path: 'edges[0].target', message: expect.stringContaining('crosses the boundary') },
    ]);
  });

  it('reports an input field of an unknown type', () => {
    const graph = graphOf([
      block('s', 'start', 'Start', {
        inputFormat: [
          { name: 'age', type: 'integer' },
          { name: 'doc', type: 'file[]' },
        ],
      }),
    ]);

    expect(pathsOf(graph)).toEqual(['blocks.s.config.inputFormat[0].type']);
  });

  it('lists every problem in one error', () => {
    const graph = graphOf(
      [block('x', 'teleport', 'Beam'), block('y', 'function', 'beam', { code: '<nope.x>' })],
      [edge('x', 'missing')],
    );

    expect(pathsOf(graph)).toEqual([
      'blocks.x.type',
      'blocks.y.name',
      'blocks',
      'edges[0].target',
      'blocks.y.config.code',
    ]);
  });
});

describe('validatedGraph', () => {
  it('validates a graph object once and hands back the same result after that', () => {
    const graph = graphOf([block('start', 'start', 'Start')]);
    const first = validatedGraph(graph);
    expect(validatedGraph(graph)).toBe(first);
    expect(first).toEqual(validateGraph(graph));
  });

  it('validates again under other limits', () => {
    const graph = graphOf([block('start', 'start', 'Start')]);
    const first = validatedGraph(graph);
    expect(validatedGraph(graph, { limits: { maxLoopIterations: 5 } })).not.toBe(first);
  });

  it('keeps refusing an invalid graph, naming the problem every time', () => {
    const graph = graphOf([block('start', 'start', 'Start'), block('x', 'teleport', 'X')]);
    expect(() => validatedGraph(graph)).toThrow('Invalid workflow graph');
    expect(() => validatedGraph(graph)).toThrow('Invalid workflow graph');
  });
});
