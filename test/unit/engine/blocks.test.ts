import { describe, expect, it } from 'vitest';
import { runStep, runToCompletion, startRun, type StepResult } from '../../../core/engine/run';
import type { WorkflowGraph } from '../../../core/engine/types';
import {
  block,
  blockSpans,
  contextOf,
  depsOf,
  edge,
  fakeClock,
  findSpan,
  graphOf,
  inProcessRunner,
  loaderOf,
  stepOptions,
} from './fixtures';

const start = block('s', 'start', 'Start', {
  inputFormat: [
    { name: 'topic', type: 'string' },
    { name: 'n', type: 'number' },
    { name: 'ms', type: 'number' },
  ],
});

function roundTrip(step: StepResult) {
  if (step.status === 'done') throw new Error('the run is already done');
  return JSON.parse(JSON.stringify(step.checkpoint));
}

describe('wait block', () => {
  const waitGraph = (durationMs: unknown) =>
    graphOf(
      [
        start,
        block('w', 'wait', 'Pause', { durationMs }),
        block('f', 'function', 'After', { code: 'return <pause.waitDuration>' }),
      ],
      [edge('s', 'w'), edge('w', 'f')],
    );

  it('ends the step waiting for the seconds left, and after them resumes from JSON with waitDuration', async () => {
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock);

    const first = await runStep(startRun(contextOf(waitGraph(5000))), deps, stepOptions());
    expect(first).toMatchObject({ status: 'waiting', waitSeconds: 5 });
    clock.advance(5000);
    const second = await runStep(roundTrip(first), deps, stepOptions());

    expect(second.status).toBe('done');
    if (second.status !== 'done') return;
    expect(second.result.output).toEqual({ result: 5000, stdout: '' });
    expect(findSpan(second.result.traceSpans, 'Pause')).toMatchObject({
      status: 'success',
      duration: 5000,
      output: { waitDuration: 5000 },
    });
  });

  it('waits again for what is left when resumed early', async () => {
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock);

    const first = await runStep(startRun(contextOf(waitGraph(5000))), deps, stepOptions());
    clock.advance(2000);
    const second = await runStep(roundTrip(first), deps, stepOptions());

    expect(second).toMatchObject({ status: 'waiting', waitSeconds: 3 });
  });

  it('sleeps a wait of a second or less inside the step', async () => {
    const slept: number[] = [];
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock, {
      sleep: async (milliseconds) => {
        slept.push(milliseconds);
        clock.advance(milliseconds);
      },
    });

    const step = await runStep(
      startRun(contextOf(waitGraph('<start.ms>'), { ms: 800 })),
      deps,
      stepOptions(),
    );

    expect(step.status).toBe('done');
    expect(slept).toEqual([800]);
  });

  it('runs the other branches first and waits only when nothing else can run', async () => {
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock);
    const graph = graphOf(
      [
        start,
        block('w', 'wait', 'Pause', { durationMs: 3000 }),
        block('f', 'function', 'Busy', { code: 'return "busy"' }),
        block('j', 'function', 'Join', { code: 'return <busy.result> + <pause.waitDuration>' }),
      ],
      [edge('s', 'w'), edge('s', 'f'), edge('w', 'j'), edge('f', 'j')],
    );

    const first = await runStep(startRun(contextOf(graph)), deps, stepOptions());
    expect(first.status).toBe('waiting');
    clock.advance(3000);
    const second = await runStep(roundTrip(first), deps, stepOptions());

    expect(second.status === 'done' && second.result.output).toEqual({ result: 'busy3000', stdout: '' });
    expect(second.status === 'done' && blockSpans(second.result.traceSpans).map((span) => span.name)).toEqual(
      ['Start', 'Busy', 'Pause', 'Join'],
    );
  });

  it('is slept through by runToCompletion', async () => {
    const slept: number[] = [];
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock, {
      sleep: async (milliseconds) => {
        slept.push(milliseconds);
        clock.advance(milliseconds);
      },
    });

    const result = await runToCompletion(contextOf(waitGraph(90_000)), deps);

    expect(result.output).toEqual({ result: 90_000, stdout: '' });
    expect(slept).toEqual([90_000]);
  });

  it('fails on a referenced duration that is not a number of milliseconds', async () => {
    const result = await runToCompletion(
      contextOf(waitGraph('<start.topic>'), { topic: 'soon' }),
      depsOf(inProcessRunner()),
    );

    expect(result.error).toBe(
      'Pause: Wait durationMs must be a number of milliseconds of at least 0; got "soon"',
    );
  });

  it('suspends inside a loop iteration and resumes the iteration where it stopped', async () => {
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner(), clock);
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('w', 'wait', 'Pause', { durationMs: 2000 }, { parentId: 'l' }),
        block('f', 'function', 'Tick', { code: 'return <loop.index>' }, { parentId: 'l' }),
      ],
      [edge('s', 'l'), edge('w', 'f')],
    );

    let step = await runStep(startRun(contextOf(graph)), deps, stepOptions());
    const statuses: string[] = [step.status];
    while (step.status !== 'done') {
      clock.advance(step.status === 'waiting' ? step.waitSeconds * 1000 : 0);
      step = await runStep(roundTrip(step), deps, stepOptions());
      statuses.push(step.status);
    }

    expect(statuses).toEqual(['waiting', 'waiting', 'done']);
    expect(step.result.output).toEqual({
      results: [
        { result: 0, stdout: '' },
        { result: 1, stdout: '' },
      ],
    });
  });
});

describe('variables block', () => {
  it('sets variables with resolved values that later blocks read as <variable.name>', async () => {
    const graph = graphOf(
      [
        start,
        block('v', 'variables', 'Set', {
          assignments: [
            { name: 'greeting', value: 'hello <start.topic>' },
            { name: 'count', value: '<start.n>' },
          ],
        }),
        block('f', 'function', 'Use', { code: 'return [<variable.greeting>, <variable.count> + 1]' }),
      ],
      [edge('s', 'v'), edge('v', 'f')],
    );

    const result = await runToCompletion(
      contextOf(graph, { topic: 'there', n: 2 }),
      depsOf(inProcessRunner()),
    );

    expect(result.output).toEqual({ result: ['hello there', 3], stdout: '' });
    expect(findSpan(result.traceSpans, 'Set')?.output).toEqual({ greeting: 'hello there', count: 2 });
  });

  it('keeps values across loop iterations, so a loop can accumulate', async () => {
    const graph = graphOf(
      [
        start,
        block('v0', 'variables', 'Init', { assignments: [{ name: 'total', value: 0 }] }),
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 4 }),
        block('a', 'function', 'Add', { code: 'return <variable.total> + <loop.index>' }, { parentId: 'l' }),
        block(
          'v',
          'variables',
          'Store',
          { assignments: [{ name: 'total', value: '<add.result>' }] },
          {
            parentId: 'l',
          },
        ),
        block('f', 'function', 'Total', { code: 'return <variable.total>' }),
      ],
      [edge('s', 'v0'), edge('v0', 'l'), edge('a', 'v'), edge('l', 'f')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.output).toEqual({ result: 6, stdout: '' });
  });

  it('fails on an assignment without a name', async () => {
    const graph = graphOf(
      [start, block('v', 'variables', 'Set', { assignments: [{ value: 1 }] })],
      [edge('s', 'v')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.error).toBe('Set: Variable assignment 1 has no name');
  });
});

describe('workflow block', () => {
  const child = graphOf(
    [
      block('cs', 'start', 'Start', { inputFormat: [{ name: 'name', type: 'string', required: true }] }),
      block('g', 'function', 'Greet', { code: 'return "hi " + <start.name>' }),
    ],
    [edge('cs', 'g')],
  );

  function parent(config: Record<string, unknown>, extra: { errorEdge?: boolean } = {}): WorkflowGraph {
    return graphOf(
      [
        start,
        block('w', 'workflow', 'Child', config),
        block('f', 'function', 'Use', { code: 'return <child.result>' }),
        ...(extra.errorEdge ? [block('r', 'response', 'Recover', { data: '<child>', status: 424 })] : []),
      ],
      [edge('s', 'w'), edge('w', 'f'), ...(extra.errorEdge ? [edge('w', 'r', 'error')] : [])],
    );
  }

  it('runs the deployed child with its input and outputs success and result, its spans inside the block span', async () => {
    const loader = loaderOf({ greeter: child });
    const graph = parent({ workflowId: 'greeter', input: { name: '<start.topic>' } });

    const result = await runToCompletion(
      contextOf(graph, { topic: 'Ada' }),
      depsOf(inProcessRunner(), undefined, { workflows: loader }),
    );

    expect(result.output).toEqual({ result: { result: 'hi Ada', stdout: '' }, stdout: '' });
    expect(loader.calls).toEqual([['ws-1', 'greeter']]);
    const span = findSpan(result.traceSpans, 'Child')!;
    expect(span).toMatchObject({
      type: 'workflow',
      status: 'success',
      input: { workflowId: 'greeter', input: { name: 'Ada' } },
      output: { success: true, result: { result: 'hi Ada', stdout: '' } },
    });
    expect(span.children?.map((child) => child.name)).toEqual(['Start', 'Greet']);
  });

  it('takes the data of the child response block as the result', async () => {
    const responding = graphOf(
      [block('cs', 'start', 'Start'), block('r', 'response', 'Answer', { data: { ok: true }, status: 201 })],
      [edge('cs', 'r')],
    );

    const result = await runToCompletion(
      contextOf(parent({ workflowId: 'c' })),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ c: responding }) }),
    );

    expect(result.output).toEqual({ result: { ok: true }, stdout: '' });
    expect(result.httpStatus).toBe(200);
  });

  it('fails the block when the child fails, which follows its error edge with success false', async () => {
    const failing = graphOf(
      [
        block('cs', 'start', 'Start'),
        block('x', 'function', 'Explode', { code: 'throw new Error("kaboom")' }),
      ],
      [edge('cs', 'x')],
    );

    const result = await runToCompletion(
      contextOf(parent({ workflowId: 'c' }, { errorEdge: true })),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ c: failing }) }),
    );

    expect(result).toMatchObject({
      success: true,
      httpStatus: 424,
      output: { success: false, error: 'Explode: Error: kaboom' },
    });
    expect(findSpan(result.traceSpans, 'Child')).toMatchObject({
      status: 'error',
      children: [expect.objectContaining({ name: 'Start' }), expect.objectContaining({ name: 'Explode' })],
    });
  });

  it('fails the run naming the block when the child fails and there is no error edge', async () => {
    const failing = graphOf(
      [
        block('cs', 'start', 'Start'),
        block('x', 'function', 'Explode', { code: 'throw new Error("kaboom")' }),
      ],
      [edge('cs', 'x')],
    );

    const result = await runToCompletion(
      contextOf(parent({ workflowId: 'c' })),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ c: failing }) }),
    );

    expect(result.error).toBe('Child: Explode: Error: kaboom');
  });

  it('fails clearly when the child workflow is not deployed in the workspace', async () => {
    const result = await runToCompletion(
      contextOf(parent({ workflowId: 'ghost' })),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({}) }),
    );

    expect(result.error).toBe('Child: Workflow "ghost" is not deployed in this workspace');
  });

  it('fails clearly when the engine has no workflow loader', async () => {
    const result = await runToCompletion(contextOf(parent({ workflowId: 'c' })), depsOf(inProcessRunner()));

    expect(result.error).toBe('Child: Child workflows are not available: the engine has no workflow loader');
  });

  it('checks the child input against the child start block', async () => {
    const result = await runToCompletion(
      contextOf(parent({ workflowId: 'greeter', input: {} })),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ greeter: child }) }),
    );

    expect(result.error).toBe('Child: Workflow "greeter" input: Input field "name" is required');
  });

  it('stops a workflow that calls itself when nesting goes deeper than the limit', async () => {
    const recursive = graphOf(
      [block('s', 'start', 'Start'), block('w', 'workflow', 'Again', { workflowId: 'self' })],
      [edge('s', 'w')],
    );

    const result = await runToCompletion(
      contextOf(recursive),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ self: recursive }) }),
    );

    expect(result.error).toBe(`${'Again: '.repeat(6)}Workflow nesting deeper than 5 levels`);
    let span = findSpan(result.traceSpans, 'Again');
    let levels = 0;
    while (span?.children) {
      levels += 1;
      span = span.children.find((child) => child.name === 'Again');
    }
    expect(levels).toBe(5);
  });

  it('takes its nesting limit from the engine limits', async () => {
    const recursive = graphOf(
      [block('s', 'start', 'Start'), block('w', 'workflow', 'Again', { workflowId: 'self' })],
      [edge('s', 'w')],
    );

    const result = await runToCompletion(
      contextOf(recursive),
      depsOf(inProcessRunner(), undefined, {
        workflows: loaderOf({ self: recursive }),
        limits: { maxWorkflowDepth: 1 },
      }),
    );

    expect(result.error).toBe('Again: Again: Workflow nesting deeper than 1 levels');
  });

  it('suspends the whole run at a wait inside the child and resumes inside the child', async () => {
    const clock = fakeClock();
    const pausing = graphOf(
      [
        block('cs', 'start', 'Start'),
        block('cw', 'wait', 'Pause', { durationMs: 3000 }),
        block('cf', 'function', 'Late', { code: 'return "late"' }),
      ],
      [edge('cs', 'cw'), edge('cw', 'cf')],
    );
    const deps = depsOf(inProcessRunner(), clock, { workflows: loaderOf({ c: pausing }) });

    const first = await runStep(startRun(contextOf(parent({ workflowId: 'c' }))), deps, stepOptions());
    expect(first).toMatchObject({ status: 'waiting', waitSeconds: 3 });
    clock.advance(3000);
    const second = await runStep(roundTrip(first), deps, stepOptions());

    expect(second.status === 'done' && second.result.output).toEqual({
      result: { result: 'late', stdout: '' },
      stdout: '',
    });
  });

  it('runs a child in each loop iteration and keeps their spans apart', async () => {
    const graph = graphOf(
      [
        start,
        block('l', 'loop', 'Names', { loopType: 'forEach', forEachItems: ['Ada', 'Bob'] }),
        block(
          'w',
          'workflow',
          'Child',
          { workflowId: 'greeter', input: { name: '<loop.currentItem>' } },
          {
            parentId: 'l',
          },
        ),
      ],
      [edge('s', 'l')],
    );

    const result = await runToCompletion(
      contextOf(graph),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ greeter: child }) }),
    );

    expect(
      (result.output as { results: Array<{ result: { result: string } }> }).results.map(
        (entry) => entry.result.result,
      ),
    ).toEqual(['hi Ada', 'hi Bob']);
  });
});
