import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../../core/errors';
import { runToCompletion, startRun } from '../../../core/engine/run';
import type { CodeRunner, CodeRunRequest } from '../../../core/engine/types';
import {
  block,
  blockSpans,
  cancellableRunner,
  contextOf,
  depsOf,
  edge,
  findSpan,
  graphOf,
  inProcessRunner,
} from './fixtures';

const start = block('s', 'start', 'Start', {
  inputFormat: [
    { name: 'items', type: 'array' },
    { name: 'n', type: 'number' },
  ],
});

function run(
  graph: ReturnType<typeof graphOf>,
  input: Record<string, unknown> = {},
  runner = inProcessRunner(),
) {
  return runToCompletion(contextOf(graph, input), depsOf(runner));
}

/** Results of a container as plain values: each iteration's function `result`. */
function resultsOf(output: unknown): unknown[] {
  return (output as { results: Array<{ result: unknown }> }).results.map((entry) => entry?.result);
}

/** A runner whose calls stay open until released, to finish them in a chosen order. */
function gatedRunner() {
  const calls: Array<{ request: CodeRunRequest; release: () => void }> = [];
  const inner = inProcessRunner();
  const runner: CodeRunner = {
    async run(request) {
      await new Promise<void>((release) => calls.push({ request, release }));
      return inner.run(request);
    },
  };
  return { runner, calls };
}

describe('loop', () => {
  it('runs a for loop body the given number of times and outputs each last body block in order', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop 1', { loopType: 'for', iterations: 3 }),
        block('b', 'function', 'Body', { code: 'return <loop.index> * 10' }, { parentId: 'l' }),
        block('after', 'function', 'After', { code: 'return <loop1.results>.length' }),
      ],
      [edge('s', 'l'), edge('l', 'b', 'loop-start-source'), edge('l', 'after', 'loop-end-source')],
    );

    const result = await run(graph);

    expect(result.success).toBe(true);
    expect(result.output).toEqual({ result: 3, stdout: '' });
    expect(resultsOf(findSpan(result.traceSpans, 'Loop 1')?.output)).toEqual([0, 10, 20]);
  });

  it('gives a forEach body each item of a referenced array as currentItem, and the array as items', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Each', { loopType: 'forEach', forEachItems: '<start.items>' }),
        block(
          'b',
          'function',
          'Body',
          {
            code: 'return <loop.currentItem> + "/" + <loop.index> + "/" + <loop.items>.length',
          },
          { parentId: 'l' },
        ),
      ],
      [edge('s', 'l'), edge('l', 'b', 'loop-start-source')],
    );

    const result = await run(graph, { items: ['a', 'b'] });

    expect(resultsOf(result.output)).toEqual(['a/0/2', 'b/1/2']);
  });

  it('iterates the [key, value] entries of an object given as JSON text', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Each', { loopType: 'forEach', forEachItems: '{"x": 1, "y": 2}' }),
        block(
          'b',
          'function',
          'Body',
          { code: 'return <loop.currentItem>[0] + "=" + <loop.currentItem>[1]' },
          {
            parentId: 'l',
          },
        ),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual(['x=1', 'y=2']);
  });

  it('evaluates a while condition before each iteration, with the coming index as <loop.index>', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'While', { loopType: 'while', condition: '<loop.index> < 3' }),
        block('b', 'function', 'Body', { code: 'return <loop.index>' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph, {}, runner);

    expect(resultsOf(result.output)).toEqual([0, 1, 2]);
    expect(
      runner.requests.filter((request) => request.code.startsWith('return (')).map((r) => r.code),
    ).toEqual(['return (0 < 3\n);', 'return (1 < 3\n);', 'return (2 < 3\n);', 'return (3 < 3\n);']);
  });

  it('runs a while loop whose condition is false at once zero times and outputs no results', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'While', { loopType: 'while', condition: 'false' }),
        block('b', 'function', 'Body', { code: 'return 1' }, { parentId: 'l' }),
        block('after', 'function', 'After', { code: 'return <while.results>' }),
      ],
      [edge('s', 'l'), edge('l', 'after')],
    );

    const result = await run(graph);

    expect(result.output).toEqual({ result: [], stdout: '' });
  });

  it('runs a doWhile body once before its condition is first evaluated', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Again', { loopType: 'doWhile', condition: 'false' }),
        block('b', 'function', 'Body', { code: 'return "once"' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual(['once']);
  });

  it('lets a loop condition read the outputs of the iteration before', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Grow', { loopType: 'while', condition: '(<double.result> ?? 0) < 4' }),
        block('b', 'function', 'Double', { code: 'return <loop.index> * 2' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual([0, 2, 4]);
  });

  it('outputs an object keyed by name for an iteration that ends in several blocks', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 1 }),
        block('a', 'function', 'Left Side', { code: 'return "l"' }, { parentId: 'l' }),
        block('b', 'function', 'Right Side', { code: 'return "r"' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect(result.output).toEqual({
      results: [{ leftside: { result: 'l', stdout: '' }, rightside: { result: 'r', stdout: '' } }],
    });
  });

  it('runs the body from the children with no incoming edge from a sibling, in order along its edges', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('a', 'function', 'First', { code: 'return <loop.index> + 1' }, { parentId: 'l' }),
        block('b', 'function', 'Second', { code: 'return <first.result> * 100' }, { parentId: 'l' }),
      ],
      [edge('s', 'l'), edge('a', 'b')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual([100, 200]);
  });

  it('follows the branch a condition inside the body picks, separately in each iteration', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 3 }),
        block(
          'c',
          'condition',
          'Parity',
          {
            conditions: [
              { id: 'even', expression: '<loop.index> % 2 === 0' },
              { id: 'odd', expression: 'else' },
            ],
          },
          { parentId: 'l' },
        ),
        block('e', 'function', 'Even', { code: 'return "even"' }, { parentId: 'l' }),
        block('o', 'function', 'Odd', { code: 'return "odd"' }, { parentId: 'l' }),
      ],
      [edge('s', 'l'), edge('c', 'e', 'condition-even'), edge('c', 'o', 'condition-odd')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual(['even', 'odd', 'even']);
  });

  it('skips a disabled body block in every iteration', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('a', 'function', 'On', { code: 'return "on"' }, { parentId: 'l' }),
        block('b', 'function', 'Off', { code: 'return "off"' }, { parentId: 'l', enabled: false }),
      ],
      [edge('s', 'l'), edge('a', 'b')],
    );

    const result = await run(graph);

    expect(resultsOf(result.output)).toEqual(['on', 'on']);
  });

  it('skips a disabled loop with its whole body and what only it leads to', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }, { enabled: false }),
        block('a', 'function', 'Body', { code: 'return 1' }, { parentId: 'l' }),
        block('after', 'function', 'After', { code: 'return 2' }),
        block('other', 'function', 'Other', { code: 'return 3' }),
      ],
      [edge('s', 'l'), edge('l', 'after'), edge('s', 'other')],
    );

    const result = await run(graph, {}, runner);

    expect(blockSpans(result.traceSpans).map((span) => span.name)).toEqual(['Start', 'Other']);
    expect(runner.requests.map((request) => request.code)).toEqual(['return 3']);
  });

  it('continues an iteration down an error edge inside the body', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block(
          'a',
          'function',
          'Risky',
          { code: 'if (<loop.index> === 1) throw new Error("odd"); return "fine"' },
          {
            parentId: 'l',
          },
        ),
        block('r', 'function', 'Recover', { code: 'return "recovered " + <risky.error>' }, { parentId: 'l' }),
      ],
      [edge('s', 'l'), edge('a', 'r', 'error')],
    );

    const result = await run(graph);

    expect(result.success).toBe(true);
    expect(resultsOf(result.output)).toEqual(['fine', 'recovered Error: odd']);
  });

  it('fails the run naming loop, iteration and block when a body block fails without an error edge', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 3 }),
        block(
          'a',
          'function',
          'Body',
          { code: 'if (<loop.index> === 1) throw new Error("boom"); return 1' },
          {
            parentId: 'l',
          },
        ),
        block('after', 'function', 'After', { code: 'return 1' }),
      ],
      [edge('s', 'l'), edge('l', 'after')],
    );

    const result = await run(graph);

    expect(result).toMatchObject({ success: false, error: 'Loop: Iteration 1: Body: Error: boom' });
    const loop = findSpan(result.traceSpans, 'Loop')!;
    expect(loop).toMatchObject({ status: 'error', error: 'Iteration 1: Body: Error: boom' });
    expect(loop.children?.map((span) => [span.name, span.status])).toEqual([
      ['Iteration 0', 'success'],
      ['Iteration 1', 'error'],
    ]);
  });

  it('takes the error edge of the loop when its body fails', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('a', 'function', 'Body', { code: 'throw new Error("boom")' }, { parentId: 'l' }),
        block('r', 'response', 'Apology', { data: '<loop.error>', status: 502 }),
      ],
      [edge('s', 'l'), edge('l', 'r', 'error')],
    );

    const result = await run(graph);

    expect(result).toMatchObject({
      success: true,
      httpStatus: 502,
      output: 'Iteration 0: Body: Error: boom',
    });
  });

  it('fails a while loop that reaches the iteration limit with its condition still holding', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Forever', { loopType: 'while', condition: 'true' }),
        block('a', 'function', 'Body', { code: 'return 1' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await runToCompletion(
      contextOf(graph),
      depsOf(inProcessRunner(), undefined, { limits: { maxLoopIterations: 5 } }),
    );

    expect(result.error).toBe(
      'Forever: Loop reached the limit of 5 iterations and its condition still holds',
    );
    expect(findSpan(result.traceSpans, 'Forever')?.children).toHaveLength(5);
  });

  it('fails a doWhile loop that reaches the iteration limit', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Forever', { loopType: 'doWhile', condition: 'true' }),
        block('a', 'function', 'Body', { code: 'return 1' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await runToCompletion(
      contextOf(graph),
      depsOf(inProcessRunner(), undefined, { limits: { maxLoopIterations: 3 } }),
    );

    expect(result.error).toBe(
      'Forever: Loop reached the limit of 3 iterations and its condition still holds',
    );
  });

  it('fails before the first iteration when a referenced count or list is above the limit', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Counted', { loopType: 'for', iterations: '<start.n>' }),
        block('m', 'loop', 'Listed', { loopType: 'forEach', forEachItems: '<start.items>' }),
        block('a', 'function', 'A', { code: 'return 1' }, { parentId: 'l' }),
        block('b', 'function', 'B', { code: 'return 1' }, { parentId: 'm' }),
      ],
      [edge('s', 'l'), edge('s', 'm')],
    );
    const runner = inProcessRunner();

    const counted = await runToCompletion(
      contextOf(graph, { n: 4, items: [] }),
      depsOf(runner, undefined, { limits: { maxLoopIterations: 3 } }),
    );
    const listed = await runToCompletion(
      contextOf(graph, { n: 0, items: [1, 2, 3, 4] }),
      depsOf(runner, undefined, { limits: { maxLoopIterations: 3 } }),
    );

    expect(counted.error).toBe('Counted: Loop runs 4 iterations, more than the limit of 3');
    expect(listed.error).toBe('Listed: Loop over 4 items is more than the limit of 3 iterations');
    expect(runner.requests).toHaveLength(0);
  });

  it('rejects a for loop written with more iterations than the limit before the run starts', () => {
    const graph = graphOf(
      [start, block('l', 'loop', 'Loop', { loopType: 'for', iterations: 1001 })],
      [edge('s', 'l')],
    );

    expect(() => startRun(contextOf(graph))).toThrow(ValidationError);
  });

  it('fails on forEach items that are neither a list, an object nor JSON text of one', async () => {
    const graph = graphOf(
      [start, block('l', 'loop', 'Each', { loopType: 'forEach', forEachItems: 'a, b' })],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect(result.error).toBe(
      'Each: Loop forEachItems must be an array, an object, or JSON text of one; got text that is not JSON',
    );
  });

  it('records a span per iteration holding the body spans, all marked with loop id and index', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('a', 'function', 'Body', { code: 'return <loop.index>' }, { parentId: 'l' }),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    const loop = blockSpans(result.traceSpans)[1];
    expect(loop).toMatchObject({ name: 'Loop', type: 'loop', blockId: 'l', status: 'success' });
    expect(loop.children).toEqual([
      expect.objectContaining({
        name: 'Iteration 0',
        type: 'loop-iteration',
        loopId: 'l',
        iterationIndex: 0,
        status: 'success',
        children: [expect.objectContaining({ name: 'Body', loopId: 'l', iterationIndex: 0 })],
      }),
      expect.objectContaining({
        name: 'Iteration 1',
        type: 'loop-iteration',
        loopId: 'l',
        iterationIndex: 1,
        children: [expect.objectContaining({ name: 'Body', loopId: 'l', iterationIndex: 1 })],
      }),
    ]);
  });
});

describe('parallel', () => {
  it('runs count branches at the same time and outputs their results in branch order', async () => {
    const { runner, calls } = gatedRunner();
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 3 }),
        block('b', 'function', 'Branch', { code: 'return <parallel.index>' }, { parentId: 'p' }),
      ],
      [edge('s', 'p')],
    );

    const running = runToCompletion(contextOf(graph), depsOf(runner));
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    for (const call of [...calls].reverse()) call.release();
    const result = await running;

    expect(resultsOf(result.output)).toEqual([0, 1, 2]);
    expect(findSpan(result.traceSpans, 'Fan')?.children?.map((span) => span.name)).toEqual([
      'Branch 0',
      'Branch 1',
      'Branch 2',
    ]);
  });

  it('gives each branch of a collection its item as <parallel.currentItem>', async () => {
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'collection', collection: '<start.items>' }),
        block(
          'b',
          'function',
          'Branch',
          {
            code: 'return <parallel.currentItem>.toUpperCase() + <parallel.items>.length',
          },
          { parentId: 'p' },
        ),
      ],
      [edge('s', 'p')],
    );

    const result = await run(graph, { items: ['a', 'b', 'c'] });

    expect(resultsOf(result.output)).toEqual(['A3', 'B3', 'C3']);
  });

  it('runs no more branches at once than the concurrency limit', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 7 }),
        block('b', 'function', 'Branch', { code: 'return <parallel.index>' }, { parentId: 'p' }),
      ],
      [edge('s', 'p')],
    );

    const result = await runToCompletion(
      contextOf(graph),
      depsOf(runner, undefined, { limits: { parallelConcurrency: 2 } }),
    );

    expect(runner.maxInFlight).toBe(2);
    expect(resultsOf(result.output)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('outputs no results for zero branches and goes on', async () => {
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'collection', collection: [] }),
        block('b', 'function', 'Branch', { code: 'return 1' }, { parentId: 'p' }),
        block('after', 'function', 'After', { code: 'return <fan.results>' }),
      ],
      [edge('s', 'p'), edge('p', 'after', 'parallel-end-source')],
    );

    const result = await run(graph);

    expect(result.output).toEqual({ result: [], stdout: '' });
  });

  it('fails with a clear error when a referenced count is above the branch limit', async () => {
    const graph = graphOf(
      [start, block('p', 'parallel', 'Fan', { parallelType: 'count', count: '<start.n>' })],
      [edge('s', 'p')],
    );

    const result = await run(graph, { n: 101 });

    expect(result.error).toBe('Fan: Parallel runs 101 branches, more than the limit of 100');
  });

  it('cancels the branches still running when one fails, and their spans say so', async () => {
    const runner = cancellableRunner();
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 3 }),
        block(
          'b',
          'function',
          'Work',
          {
            code: 'if (<parallel.index> === 1) throw new Error("boom"); return await hang()',
          },
          { parentId: 'p' },
        ),
      ],
      [edge('s', 'p')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    expect(result.error).toBe('Fan: Branch 1: Work: Error: boom');
    expect(runner.aborted).toHaveLength(2);
    const branches = findSpan(result.traceSpans, 'Fan')?.children ?? [];
    expect(branches.map((span) => [span.name, span.status, span.error])).toEqual([
      ['Branch 0', 'error', 'Cancelled: branch 1 failed'],
      ['Branch 1', 'error', 'Work: Error: boom'],
      ['Branch 2', 'error', 'Cancelled: branch 1 failed'],
    ]);
    expect(branches[0].children).toEqual([
      expect.objectContaining({
        name: 'Work',
        status: 'error',
        error: 'Cancelled: branch 1 failed',
        parallelId: 'p',
      }),
    ]);
  });

  it('records branch spans marked with the parallel id and index', async () => {
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
        block('b', 'function', 'Branch', { code: 'return 1' }, { parentId: 'p' }),
      ],
      [edge('s', 'p')],
    );

    const result = await run(graph);

    const branches = findSpan(result.traceSpans, 'Fan')?.children ?? [];
    expect(branches).toEqual([
      expect.objectContaining({
        type: 'parallel-branch',
        parallelId: 'p',
        iterationIndex: 0,
        children: [expect.objectContaining({ name: 'Branch', parallelId: 'p', iterationIndex: 0 })],
      }),
      expect.objectContaining({
        type: 'parallel-branch',
        parallelId: 'p',
        iterationIndex: 1,
        children: [expect.objectContaining({ name: 'Branch', parallelId: 'p', iterationIndex: 1 })],
      }),
    ]);
  });
});

describe('nested containers', () => {
  it('runs a loop inside each parallel branch with both indexes available', async () => {
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
        block('l', 'loop', 'Inner', { loopType: 'for', iterations: 3 }, { parentId: 'p' }),
        block(
          'b',
          'function',
          'Cell',
          { code: 'return <parallel.index> + ":" + <loop.index>' },
          { parentId: 'l' },
        ),
      ],
      [edge('s', 'p')],
    );

    const result = await run(graph);

    expect((result.output as { results: unknown[] }).results.map(resultsOf)).toEqual([
      ['0:0', '0:1', '0:2'],
      ['1:0', '1:1', '1:2'],
    ]);
    const inner = findSpan(result.traceSpans, 'Branch 1')?.children?.[0];
    expect(inner).toMatchObject({ name: 'Inner', parallelId: 'p', iterationIndex: 1 });
    expect(inner?.children?.[2]?.children?.[0]).toMatchObject({
      name: 'Cell',
      loopId: 'l',
      iterationIndex: 2,
    });
  });

  it('runs a parallel inside each loop iteration', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Outer', { loopType: 'forEach', forEachItems: ['x', 'y'] }),
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }, { parentId: 'l' }),
        block(
          'b',
          'function',
          'Cell',
          {
            code: 'return <loop.currentItem> + <parallel.index>',
          },
          { parentId: 'p' },
        ),
      ],
      [edge('s', 'l')],
    );

    const result = await run(graph);

    expect((result.output as { results: unknown[] }).results.map(resultsOf)).toEqual([
      ['x0', 'x1'],
      ['y0', 'y1'],
    ]);
  });

  it('resolves <loop.index> to the innermost loop, and reaches outer iterations through their blocks', async () => {
    const graph = graphOf(
      [
        start,
        block('o', 'loop', 'Outer', { loopType: 'for', iterations: 2 }),
        block('row', 'function', 'Row', { code: 'return <loop.index>' }, { parentId: 'o' }),
        block('i', 'loop', 'Inner', { loopType: 'for', iterations: 2 }, { parentId: 'o' }),
        block(
          'cell',
          'function',
          'Cell',
          { code: 'return <row.result> * 10 + <loop.index>' },
          { parentId: 'i' },
        ),
      ],
      [edge('s', 'o'), edge('row', 'i')],
    );

    const result = await run(graph);

    expect((result.output as { results: unknown[] }).results.map(resultsOf)).toEqual([
      [0, 1],
      [10, 11],
    ]);
  });

  it('moves a failure inside a nested container up to the outer container, naming each level', async () => {
    const graph = graphOf(
      [
        start,
        block('o', 'loop', 'Outer', { loopType: 'for', iterations: 2 }),
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }, { parentId: 'o' }),
        block(
          'b',
          'function',
          'Cell',
          {
            code: 'if (<loop.index> === 1 && <parallel.index> === 0) throw new Error("bad cell"); return 1',
          },
          { parentId: 'p' },
        ),
      ],
      [edge('s', 'o')],
    );

    const result = await run(graph);

    expect(result.error).toBe('Outer: Iteration 1: Fan: Branch 0: Cell: Error: bad cell');
  });
});

describe('cancellation', () => {
  it('aborts blocks still running elsewhere when the run fails, and their spans say so', async () => {
    const runner = cancellableRunner();
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'Slow', { code: 'return await hang()' }),
        block('b', 'function', 'Broken', { code: 'throw new Error("no")' }),
      ],
      [edge('s', 'a'), edge('s', 'b')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    expect(result.error).toBe('Broken: Error: no');
    expect(runner.aborted).toEqual(['return await hang()']);
    expect(findSpan(result.traceSpans, 'Slow')).toMatchObject({
      status: 'error',
      error: 'Cancelled: the run failed',
    });
  });

  it('aborts blocks still running when a response block ends the run', async () => {
    const runner = cancellableRunner();
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'Slow', { code: 'return await hang()' }),
        block('r', 'response', 'Reply', { data: 'early' }),
      ],
      [edge('s', 'a'), edge('s', 'r')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    expect(result).toMatchObject({ success: true, output: 'early' });
    expect(runner.aborted).toHaveLength(1);
    expect(findSpan(result.traceSpans, 'Slow')?.error).toBe('Cancelled: the run ended at a response block');
  });
});
