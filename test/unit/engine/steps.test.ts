import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  runStep,
  runToCompletion,
  startRun,
  type StepResult,
} from '../../../core/engine/run';
import {
  block,
  contextOf,
  depsOf,
  edge,
  fakeClock,
  graphOf,
  inProcessRunner,
  loaderOf,
  stepOptions,
} from './fixtures';

const start = block('s', 'start', 'Start');

describe('steps and checkpoints', () => {
  it('keeps environment values out of checkpoints and takes them from each step', async () => {
    const clock = fakeClock();
    const deps = depsOf(inProcessRunner({ onRun: () => clock.advance(100) }), clock);
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'First', { code: 'return {{TOKEN}}.length' }),
        block('b', 'function', 'Second', { code: 'return <first.result> + {{TOKEN}}.length' }),
      ],
      [edge('s', 'a'), edge('a', 'b')],
    );
    const checkpoint = startRun(contextOf(graph, {}, { TOKEN: 'top-secret' }));

    const first = await runStep(checkpoint, deps, stepOptions(50, { TOKEN: 'top-secret' }));
    if (first.status !== 'running') throw new Error(`expected a checkpoint, got ${first.status}`);
    const second = await runStep(first.checkpoint, deps, stepOptions(50, { TOKEN: 'other' }));

    expect(JSON.stringify(checkpoint)).not.toContain('top-secret');
    expect(JSON.stringify(first.checkpoint)).not.toContain('top-secret');
    expect(second.status === 'done' && second.result.output).toEqual({ result: 10 + 5, stdout: '' });
  });

  it('resumes loops, parallels and child workflows from JSON between any two blocks to the same outputs', async () => {
    const child = graphOf(
      [
        block('cs', 'start', 'Start', { inputFormat: [{ name: 'x', type: 'number' }] }),
        block('d', 'function', 'Double', { code: 'return <start.x> * 2' }),
      ],
      [edge('cs', 'd')],
    );
    const graph = graphOf(
      [
        start,
        block('p', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
        block('l', 'loop', 'Inner', { loopType: 'while', condition: '<loop.index> < 2' }, { parentId: 'p' }),
        block(
          'c',
          'function',
          'Cell',
          { code: 'return <parallel.index> * 10 + <loop.index>' },
          { parentId: 'l' },
        ),
        block(
          'w',
          'workflow',
          'Child',
          { workflowId: 'double', input: { x: '<cell.result>' } },
          { parentId: 'l' },
        ),
        block('t', 'function', 'Total', { code: 'return <fan.results>' }),
      ],
      [edge('s', 'p'), edge('c', 'w'), edge('p', 't')],
    );
    const workflows = loaderOf({ double: child });
    const context = contextOf(graph);
    const expected = await runToCompletion(context, depsOf(inProcessRunner(), fakeClock(), { workflows }));

    const clock = fakeClock();
    const deps = depsOf(inProcessRunner({ onRun: () => clock.advance(100) }), clock, { workflows });
    let step: StepResult = await runStep(startRun(context), deps, stepOptions(50));
    let steps = 1;
    while (step.status !== 'done') {
      step = await runStep(JSON.parse(JSON.stringify(step.checkpoint)), deps, stepOptions(50));
      steps += 1;
    }

    expect(steps).toBeGreaterThan(5);
    expect(step.result.success).toBe(true);
    expect(step.result.output).toEqual(expected.output);
    expect(step.result.output).toEqual({
      result: [
        {
          results: [
            { result: { result: 0, stdout: '' }, success: true },
            { result: { result: 2, stdout: '' }, success: true },
          ],
        },
        {
          results: [
            { result: { result: 20, stdout: '' }, success: true },
            { result: { result: 22, stdout: '' }, success: true },
          ],
        },
      ],
      stdout: '',
    });
  });

  it('rejects a checkpoint written by an older engine', async () => {
    const old = { version: 1 } as unknown as Checkpoint;

    await expect(runStep(old, depsOf(inProcessRunner()), stepOptions())).rejects.toThrow(
      'Checkpoint version 1 is not supported by this engine',
    );
  });
});
