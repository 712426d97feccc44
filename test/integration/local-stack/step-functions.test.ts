import { describe, expect, it, vi } from 'vitest';
import type {
  ExecutionAnswer,
  ExecutionRequest,
  ExecutionState,
  StepOutcome,
} from '../../../core/runs/types';
import {
  createLocalExecutionStarter,
  validateExecutionDefinition,
} from '../../../local/stack/step-functions';

function request(executionId = 'exec-1'): ExecutionRequest {
  return {
    executionId,
    workflowId: 'wf-1',
    workspaceId: 'ws-1',
    userId: 'user-1',
    deploymentVersion: 3,
    trigger: 'api',
    input: { topic: 'local runs' },
    startedAt: '2025-01-01T00:00:00.000Z',
    mode: 'sync',
  };
}

function answerFor(state: ExecutionState): ExecutionAnswer {
  const success = !state.failure;
  return {
    httpStatus: success ? 200 : 500,
    headers: {},
    body: {
      success,
      output: state.step?.status === 'done' ? state.step.result : undefined,
      error: state.failure?.Error,
      metadata: {
        duration: 1,
        executionId: state.executionId,
        startedAt: state.startedAt,
        endedAt: state.startedAt,
        cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
      },
      traceSpans: [],
      totalDuration: 1,
    },
  };
}

/** A step that answers the given outcomes in turn and records the state it was given each time. */
function scriptedStep(...outcomes: StepOutcome[]) {
  const seen: ExecutionState[] = [];
  const step = vi.fn(async (state: ExecutionState) => {
    seen.push(structuredClone(state));
    const outcome = outcomes[seen.length - 1];
    if (!outcome) throw new Error('step called too often');
    return outcome;
  });
  return { step, seen };
}

const done: StepOutcome = { status: 'done', result: { resultRef: 'results/exec-1.json' } };

describe('createLocalExecutionStarter', () => {
  it('runs a definition that passes Amazon States Language validation', () => {
    // Act
    const validate = () => validateExecutionDefinition();

    // Assess
    expect(validate).not.toThrow();
  });

  it('returns the Finalize answer when the first step is done', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(answer.httpStatus).toBe(200);
    expect(answer.body.output).toEqual({ resultRef: 'results/exec-1.json' });
    expect(step).toHaveBeenCalledTimes(1);
    expect(step.mock.calls[0][0]).toEqual(request());
    expect(finalize).toHaveBeenCalledWith({ ...request(), step: done });
  });

  it('loops back to Step while the step answers running', async () => {
    // Prepare
    const { step, seen } = scriptedStep({ status: 'running' }, { status: 'running' }, done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(step).toHaveBeenCalledTimes(3);
    expect(seen.map((state) => state.step?.status)).toEqual([undefined, 'running', 'running']);
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(answer.body.success).toBe(true);
  });

  it('goes through Wait and back to Step when the step answers waiting', async () => {
    // Prepare
    const { step, seen } = scriptedStep({ status: 'waiting', waitSeconds: 3600 }, done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize, waitOverrideMs: 0 });
    const started = performance.now();

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(seen[1].step).toEqual({ status: 'waiting', waitSeconds: 3600 });
    expect(answer.body.success).toBe(true);
  });

  it('waits the seconds the step asks for when no override is given', async () => {
    // Prepare
    const { step } = scriptedStep({ status: 'waiting', waitSeconds: 1 }, done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });
    const started = performance.now();

    // Act
    await starter.startSync(request());

    // Assess
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('sends a step that throws to Finalize with failure set as Lambda would', async () => {
    // Prepare
    class BudgetExceeded extends Error {
      override name = 'BudgetExceeded';
    }
    const step = vi.fn(async (): Promise<StepOutcome> => {
      throw new BudgetExceeded('no credits left');
    });
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    const state = finalize.mock.calls[0][0];
    expect(step).toHaveBeenCalledTimes(1);
    expect(state.failure?.Error).toBe('BudgetExceeded');
    expect(JSON.parse(state.failure?.Cause ?? '{}')).toMatchObject({
      errorType: 'BudgetExceeded',
      errorMessage: 'no credits left',
      trace: expect.arrayContaining([expect.stringContaining('BudgetExceeded: no credits left')]),
    });
    expect(Object.keys(state.failure ?? {}).sort()).toEqual(['Cause', 'Error']);
    expect(answer.httpStatus).toBe(500);
  });

  it('rejects startSync when Finalize itself fails', async () => {
    // Prepare
    const starter = createLocalExecutionStarter({
      step: async () => done,
      finalize: async () => {
        throw new Error('log table unavailable');
      },
    });

    // Act
    const run = starter.startSync(request());

    // Assess
    await expect(run).rejects.toThrow(/log table unavailable/);
  });

  it('runs startAsync in the background until drain', async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({
      step: async () => {
        await gate;
        return done;
      },
      finalize,
    });

    // Act
    await starter.startAsync({ ...request('a'), mode: 'async' });
    await starter.startAsync({ ...request('b'), mode: 'async' });
    const inFlightBefore = starter.inFlight;
    release();
    await starter.drain();

    // Assess
    expect(inFlightBefore).toBe(2);
    expect(starter.inFlight).toBe(0);
    expect(finalize.mock.calls.map(([state]) => state.executionId).sort()).toEqual(['a', 'b']);
  });

  it('begins a background run only after startAsync has returned', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });

    // Act
    await starter.startAsync(request('later'));
    const calledBeforeDrain = step.mock.calls.length;
    await starter.drain();

    // Assess
    expect(calledBeforeDrain).toBe(0);
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('starts one background run per execution id', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });

    // Act
    await starter.startAsync(request('same'));
    await starter.startAsync(request('same'));
    await starter.drain();

    // Assess
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('reports a failed background run instead of leaving an unhandled rejection', async () => {
    // Prepare
    const onAsyncError = vi.fn(() => {
      throw new Error('the reporter fails too');
    });
    const starter = createLocalExecutionStarter({
      step: async () => done,
      finalize: async () => {
        throw new Error('finalize broke');
      },
      onAsyncError,
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);

    // Act
    await starter.startAsync(request('broken'));
    await starter.drain();
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', unhandled);

    // Assess
    expect(onAsyncError).toHaveBeenCalledWith(expect.any(Error), request('broken'));
    expect(unhandled).not.toHaveBeenCalled();
  });

  it('adds well under a millisecond per run over calling step and finalize directly', async () => {
    // Prepare
    const step = async (): Promise<StepOutcome> => done;
    const finalize = async (state: ExecutionState) => answerFor(state);
    const starter = createLocalExecutionStarter({ step, finalize });
    const perRun = async (run: () => Promise<unknown>, runs = 500) => {
      const started = performance.now();
      for (let i = 0; i < runs; i++) await run();
      return (performance.now() - started) / runs;
    };
    await perRun(() => starter.startSync(request()));

    // Act: the best of three batches, so that a busy machine does not decide the result
    const overheads: number[] = [];
    for (let batch = 0; batch < 3; batch++) {
      const viaStateMachine = await perRun(() => starter.startSync(request()));
      const direct = await perRun(async () => finalize({ ...request(), step: await step() }));
      overheads.push(viaStateMachine - direct);
    }
    const overhead = Math.min(...overheads);

    // Assess
    console.info(`local state machine overhead: ${(overhead * 1000).toFixed(0)} µs per run`);
    expect(overhead).toBeLessThan(1);
  });
});
