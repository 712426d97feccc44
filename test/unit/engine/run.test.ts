import { describe, expect, it } from 'vitest';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';
import { ValidationError } from '../../../core/errors';
import { blockDefinition } from '../../../core/engine/blocks/registry';
import type { BlockRun } from '../../../core/engine/blocks/types';
import { runStep, runStepInPlace, runToCompletion, startRun } from '../../../core/engine/run';
import type { CodeRunRequest, TraceSpan } from '../../../core/engine/types';
import { block, contextOf, depsOf, edge, fakeClock, graphOf, inProcessRunner, startedAt } from './fixtures';

const start = block('s', 'start', 'Start', {
  inputFormat: [
    { name: 'topic', type: 'string' },
    { name: 'n', type: 'number' },
  ],
});

function childrenOf(spans: TraceSpan[]): TraceSpan[] {
  return spans[0].children ?? [];
}

function executedNames(spans: TraceSpan[]): string[] {
  return childrenOf(spans).map((span) => span.name);
}

describe('workflow runs', () => {
  it('returns the response block data and status for start, function, response', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'return <start.topic>.toUpperCase()' }),
        block('r', 'response', 'Reply', { data: { loud: '<shout.result>', n: '<start.n>' }, status: 201 }),
      ],
      [edge('s', 'f'), edge('f', 'r')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'hi', n: 2 }), depsOf(inProcessRunner()));

    expect(result).toMatchObject({ success: true, output: { loud: 'HI', n: 2 }, httpStatus: 201 });
    expect(result.error).toBeUndefined();
  });

  it('runs the function code in the sandbox with references as JSON literals', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'console.log("x"); return <start.topic>.toUpperCase()' }),
      ],
      [edge('s', 'f')],
    );

    const result = await runToCompletion(
      contextOf(graph, { topic: 'hi' }),
      depsOf(createQuickJsCodeRunner()),
    );

    expect(result.output).toEqual({ result: 'HI', stdout: 'x\n' });
  });

  it('gives the function its configured time limit, else the default, and the memory limit', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'Quick', { code: 'return 1', timeoutMs: '250' }),
        block('b', 'function', 'Default', { code: 'return 2' }),
      ],
      [edge('s', 'a'), edge('s', 'b')],
    );

    await runToCompletion(contextOf(graph), { ...depsOf(runner), functionMemoryLimitInBytes: 1024 });

    expect(
      runner.requests.map(({ timeoutInMs, memoryLimitInBytes }) => ({ timeoutInMs, memoryLimitInBytes })),
    ).toEqual([
      { timeoutInMs: 250, memoryLimitInBytes: 1024 },
      { timeoutInMs: 10_000, memoryLimitInBytes: 1024 },
    ]);
  });

  it("names the run's workspace to the sandbox for function blocks, conditions and loop conditions", async () => {
    // Prepare
    const runner = inProcessRunner();
    const loop = block('l', 'loop', 'Again', { loopType: 'while', condition: '<loop.index> < 1' });
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Code', { code: 'return 1' }),
        block('c', 'condition', 'Check', { conditions: [{ id: 'yes', expression: 'true' }] }),
        loop,
        { ...block('inner', 'function', 'Inner', { code: 'return 2' }), parentId: 'l' },
      ],
      [edge('s', 'f'), edge('f', 'c'), edge('c', 'l', 'condition-yes')],
    );

    // Act
    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    // Assess
    expect(result.success, result.error).toBe(true);
    expect(runner.requests.length).toBeGreaterThanOrEqual(4);
    expect(new Set(runner.requests.map((request) => request.workspaceId))).toEqual(new Set(['ws-1']));
  });

  it('follows the branch of the first condition that holds and prunes the others', async () => {
    const graph = graphOf(
      [
        start,
        block('c', 'condition', 'Check', {
          conditions: [
            { id: 'big', expression: '<start.n> > 10' },
            { id: 'small', expression: '<start.n> > 0' },
            { id: 'other', expression: 'else' },
          ],
        }),
        block('b', 'function', 'Big', { code: 'return "big"' }),
        block('m', 'function', 'Small', { code: 'return "small"' }),
        block('o', 'function', 'Other', { code: 'return "other"' }),
        block('after', 'function', 'AfterBig', { code: 'return "after"' }),
      ],
      [
        edge('s', 'c'),
        edge('c', 'b', 'condition-big'),
        edge('c', 'm', 'condition-small'),
        edge('c', 'o', 'condition-other'),
        edge('b', 'after'),
      ],
    );

    const result = await runToCompletion(contextOf(graph, { n: 5 }), depsOf(inProcessRunner()));

    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Check', 'Small']);
    expect(childrenOf(result.traceSpans)[1].output).toEqual({
      selectedOption: 'small',
      conditionResult: true,
    });
    expect(result.output).toEqual({ result: 'small', stdout: '' });
  });

  it('takes the else branch when no condition holds', async () => {
    const graph = graphOf(
      [
        start,
        block('c', 'condition', 'Check', {
          conditions: [
            { id: 'yes', expression: '<start.topic> === "go"' },
            { id: 'no', expression: '' },
          ],
        }),
        block('y', 'function', 'Go', { code: 'return "went"' }),
        block('n', 'function', 'Stay', { code: 'return "stayed"' }),
      ],
      [edge('s', 'c'), edge('c', 'y', 'condition-yes'), edge('c', 'n', 'condition-no')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'wait' }), depsOf(inProcessRunner()));

    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Check', 'Stay']);
    expect(childrenOf(result.traceSpans)[1].output).toEqual({ selectedOption: 'no', conditionResult: false });
  });

  it('ends the path when no condition holds and there is no else branch', async () => {
    const graph = graphOf(
      [
        start,
        block('c', 'condition', 'Check', { conditions: [{ id: 'yes', expression: '<start.n> > 100' }] }),
        block('y', 'function', 'Yes', { code: 'return 1' }),
      ],
      [edge('s', 'c'), edge('c', 'y', 'condition-yes')],
    );

    const result = await runToCompletion(contextOf(graph, { n: 1 }), depsOf(inProcessRunner()));

    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Check']);
    expect(result.output).toEqual({ selectedOption: null, conditionResult: false });
  });

  it('fails the run with the condition named when an expression throws', async () => {
    const graph = graphOf(
      [start, block('c', 'condition', 'Check', { conditions: [{ id: 'bad', expression: 'nope.x' }] })],
      [edge('s', 'c')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.error).toBe('Check: Condition "bad" failed: ReferenceError: nope is not defined');
  });

  it('runs a join reached by a taken branch even when another branch into it was pruned', async () => {
    const graph = graphOf(
      [
        start,
        block('c', 'condition', 'Check', {
          conditions: [
            { id: 'yes', expression: 'false' },
            { id: 'no', expression: 'else' },
          ],
        }),
        block('y', 'function', 'Yes', { code: 'return 1' }),
        block('j', 'function', 'Join', { code: 'return <yes.result> ?? "no branch"' }),
      ],
      [edge('s', 'c'), edge('c', 'y', 'condition-yes'), edge('c', 'j', 'condition-no'), edge('y', 'j')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Check', 'Join']);
    expect(result.output).toEqual({ result: 'no branch', stdout: '' });
  });

  it('fails the run with a message naming the block when a function throws', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'return x + 1' }),
        block('r', 'response', 'Reply', { data: 'never' }),
      ],
      [edge('s', 'f'), edge('f', 'r')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(createQuickJsCodeRunner()));

    expect(result).toMatchObject({
      success: false,
      error: 'Shout: ReferenceError: x is not defined',
      httpStatus: 500,
    });
    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Shout']);
    expect(childrenOf(result.traceSpans)[1]).toMatchObject({
      status: 'error',
      error: 'ReferenceError: x is not defined',
    });
    expect(result.traceSpans[0]).toMatchObject({
      status: 'error',
      error: 'Shout: ReferenceError: x is not defined',
    });
  });

  it('continues down the error edge with the error as the block output', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'throw new TypeError("bad input")' }),
        block('ok', 'function', 'Next', { code: 'return "normal path"' }),
        block('r', 'response', 'Recover', { data: { problem: '<shout.error>' }, status: 422 }),
      ],
      [edge('s', 'f'), edge('f', 'ok'), edge('f', 'r', 'error')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result).toMatchObject({
      success: true,
      httpStatus: 422,
      output: { problem: 'TypeError: bad input' },
    });
    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Shout', 'Recover']);
    expect(childrenOf(result.traceSpans)[1]).toMatchObject({
      status: 'error',
      output: { error: 'TypeError: bad input' },
    });
  });

  it('skips a disabled block and what only it leads to', async () => {
    const graph = graphOf(
      [
        start,
        block('d', 'function', 'Off', { code: 'return "off"' }, { enabled: false }),
        block('after', 'function', 'AfterOff', { code: 'return "after"' }),
        block('on', 'function', 'On', { code: 'return "on"' }),
      ],
      [edge('s', 'd'), edge('d', 'after'), edge('s', 'on')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(executedNames(result.traceSpans)).toEqual(['Start', 'On']);
    expect(result.output).toEqual({ result: 'on', stdout: '' });
  });

  it('runs blocks that are ready together at the same time and joins them', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'Left', { code: 'return 1' }),
        block('b', 'function', 'Right', { code: 'return 2' }),
        block('j', 'function', 'Join', { code: 'return <left.result> + <right.result>' }),
      ],
      [edge('s', 'a'), edge('s', 'b'), edge('a', 'j'), edge('b', 'j')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(runner));

    expect(runner.maxInFlight).toBe(2);
    expect(executedNames(result.traceSpans)).toEqual(['Start', 'Left', 'Right', 'Join']);
    expect(result.output).toEqual({ result: 3, stdout: '' });
  });

  it('answers with the output of the last block when there is no response block', async () => {
    const graph = graphOf(
      [start, block('f', 'function', 'Shout', { code: 'return "done"' })],
      [edge('s', 'f')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result).toMatchObject({ success: true, httpStatus: 200, output: { result: 'done', stdout: '' } });
  });

  it('answers with the outputs of several final blocks keyed by normalized name', async () => {
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'First Path', { code: 'return 1' }),
        block('b', 'function', 'Second Path', { code: 'return 2' }),
      ],
      [edge('s', 'a'), edge('s', 'b')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(result.output).toEqual({
      firstpath: { result: 1, stdout: '' },
      secondpath: { result: 2, stdout: '' },
    });
  });

  it('records a workflow span with one child span per executed block', async () => {
    const clock = fakeClock();
    const runner = inProcessRunner({ onRun: () => clock.advance(40) });
    const graph = graphOf(
      [
        block('s', 'start', 'Start', { inputFormat: [{ name: 'topic', type: 'string' }] }),
        block('f', 'function', 'Shout', { code: 'return <start.topic>' }),
      ],
      [edge('s', 'f')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'hi' }), depsOf(runner, clock));

    expect(result.traceSpans).toEqual([
      {
        id: 'exec-1',
        name: 'Workflow execution',
        type: 'workflow',
        startTime: startedAt,
        endTime: '2026-01-01T00:00:00.040Z',
        duration: 40,
        status: 'success',
        children: [
          {
            id: 'exec-1-1',
            name: 'Start',
            type: 'start',
            blockId: 's',
            startTime: startedAt,
            endTime: startedAt,
            duration: 0,
            status: 'success',
            input: { topic: 'hi' },
            output: { topic: 'hi', input: { topic: 'hi' } },
          },
          {
            id: 'exec-1-2',
            name: 'Shout',
            type: 'function',
            blockId: 'f',
            startTime: startedAt,
            endTime: '2026-01-01T00:00:00.040Z',
            duration: 40,
            status: 'success',
            input: { code: 'return "hi"' },
            output: { result: 'hi', stdout: '' },
          },
        ],
      },
    ]);
    expect(result).toMatchObject({
      startedAt,
      endedAt: '2026-01-01T00:00:00.040Z',
      durationMs: 40,
      cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
      responseHeaders: {},
    });
  });

  it('resolves environment variables for the block but keeps them out of the span', async () => {
    const runner = inProcessRunner();
    const graph = graphOf(
      [start, block('f', 'function', 'Call', { code: 'return {{TOKEN}}.length' })],
      [edge('s', 'f')],
    );

    const result = await runToCompletion(contextOf(graph, {}, { TOKEN: 'abcdef' }), depsOf(runner));

    expect(runner.requests[0].code).toBe('return "abcdef".length');
    expect(childrenOf(result.traceSpans)[1].input).toEqual({ code: 'return {{TOKEN}}.length' });
    expect(result.output).toEqual({ result: 6, stdout: '' });
  });

  it('passes response headers and a referenced status', async () => {
    const graph = graphOf(
      [
        start,
        block('r', 'response', 'Reply', {
          data: '<start.topic>',
          status: '<start.n>',
          headers: { 'x-topic': 'is <start.topic>' },
        }),
      ],
      [edge('s', 'r')],
    );

    const result = await runToCompletion(
      contextOf(graph, { topic: 'hi', n: 202 }),
      depsOf(inProcessRunner()),
    );

    expect(result).toMatchObject({ output: 'hi', httpStatus: 202, responseHeaders: { 'x-topic': 'is hi' } });
  });

  it('fails a block type that has no definition with a clear error', async () => {
    const definition = blockDefinition('hologram');

    await expect(definition.execute({}, {} as BlockRun)).rejects.toThrow(
      'Block type "hologram" is not supported yet',
    );
  });

  it('rejects an invalid graph when the run starts', () => {
    const graph = graphOf([block('f', 'function', 'Shout')]);

    expect(() => startRun(contextOf(graph))).toThrow(ValidationError);
  });

  it('returns running without work when the step budget is used, and resumes from JSON to the same result', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'return <start.topic>.toUpperCase()' }),
        block('r', 'response', 'Reply', { data: '<shout.result>' }),
      ],
      [edge('s', 'f'), edge('f', 'r')],
    );
    const deps = depsOf(inProcessRunner());
    const context = contextOf(graph, { topic: 'hi' });
    const expected = await runToCompletion(context, deps);

    const first = await runStep(startRun(context), deps, { budgetInMs: 0, environment: {} });
    expect(first.status).toBe('running');
    const saved = JSON.parse(JSON.stringify(first.status === 'running' ? first.checkpoint : null));
    const second = await runStep(saved, deps, { budgetInMs: 60_000, environment: {} });

    expect(second).toEqual({ status: 'done', result: expected });
  });

  it('spreads a run over several steps when each step has little time', async () => {
    const clock = fakeClock();
    const runner = inProcessRunner({ onRun: () => clock.advance(100) });
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'One', { code: 'return 1' }),
        block('b', 'function', 'Two', { code: 'return <one.result> + 1' }),
        block('c', 'function', 'Three', { code: 'return <two.result> + 1' }),
      ],
      [edge('s', 'a'), edge('a', 'b'), edge('b', 'c')],
    );
    const deps = depsOf(runner, clock);

    let step = await runStep(startRun(contextOf(graph)), deps, { budgetInMs: 50, environment: {} });
    const statuses: string[] = [step.status];
    while (step.status !== 'done') {
      const checkpoint = JSON.parse(JSON.stringify(step.checkpoint));
      step = await runStep(checkpoint, deps, { budgetInMs: 50, environment: {} });
      statuses.push(step.status);
    }

    expect(statuses).toEqual(['running', 'running', 'done']);
    expect(step.result.output).toEqual({ result: 3, stdout: '' });
  });

  it('does not change the checkpoint it is given', async () => {
    const graph = graphOf([start, block('f', 'function', 'Shout', { code: 'return 1' })], [edge('s', 'f')]);
    const checkpoint = startRun(contextOf(graph));
    const copy = structuredClone(checkpoint);

    await runStep(checkpoint, depsOf(inProcessRunner()), { budgetInMs: 60_000, environment: {} });

    expect(checkpoint).toEqual(copy);
  });

  it('takes a step on the checkpoint it is handed, with runStepInPlace, as runStep does on a copy', async () => {
    // Prepare
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Shout', { code: 'return <start.topic>.toUpperCase()' }),
        block('r', 'response', 'Reply', { data: '<shout.result>' }),
      ],
      [edge('s', 'f'), edge('f', 'r')],
    );
    const deps = depsOf(inProcessRunner());
    const context = contextOf(graph, { topic: 'hi' });
    const expected = await runToCompletion(context, deps);
    const checkpoint = startRun(context);

    // Act
    const first = await runStepInPlace(checkpoint, deps, { budgetInMs: 0, environment: {} });
    const second = await runStepInPlace(first.status === 'running' ? first.checkpoint : checkpoint, deps, {
      budgetInMs: 60_000,
      environment: {},
    });

    // Assess
    expect(first.status).toBe('running');
    expect(first.status === 'running' && first.checkpoint).toBe(checkpoint);
    expect(checkpoint.executed).toBeGreaterThan(0);
    expect(second).toEqual({ status: 'done', result: expected });
  });

  it('evaluates each condition expression in the sandbox as a return statement', async () => {
    const requests: CodeRunRequest[] = [];
    const runner = inProcessRunner({ onRun: (request) => requests.push(request) });
    const graph = graphOf(
      [
        start,
        block('c', 'condition', 'Check', {
          conditions: [{ id: 'a', expression: '<start.topic> === "x" // why' }],
        }),
      ],
      [edge('s', 'c')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'x' }), depsOf(runner));

    expect(requests.map((request) => request.code)).toEqual(['return ("x" === "x" // why\n);']);
    expect(result.output).toEqual({ selectedOption: 'a', conditionResult: true });
  });
});
