import { describe, expect, it } from 'vitest';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';
import { block } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import {
  executeStep,
  failureMessage,
  finalizeRun,
  inlineResultLimitInBytes,
  type StepDeps,
} from '../../../core/runs/service';
import { type ExecutionLogEntry, logIdFor } from '../../../core/runs/log';
import { MemoryCheckpoints, runState } from '../../support/runs';
import type { Deployment } from '../../../core/workflows/types';

function graph(code: string): WorkflowGraph {
  return {
    blocks: {
      start: block('start', 'start', 'Start', { inputFormat: [{ name: 'n', type: 'number' }] }),
      work: block('work', 'function', 'Work', { code }),
      respond: block('respond', 'response', 'Respond', { data: '<work.result>' }),
    },
    edges: [
      { id: 'e1', source: 'start', target: 'work' },
      { id: 'e2', source: 'work', target: 'respond' },
    ],
    loops: {},
    parallels: {},
  };
}

const state = runState;

function stepDeps(code: string, budgetInMs: number, checkpoints = new MemoryCheckpoints()): StepDeps {
  const deployment: Deployment = {
    workflowId: 'wf_1',
    workspaceId: 'ws_1',
    version: 1,
    state: graph(code),
    stateHash: 'h',
    deployedAt: '2026-01-01T00:00:00.000Z',
    deployedBy: 'usr_1',
  };
  return {
    deployments: { getDeployment: async () => deployment },
    checkpoints,
    engine: { codeRunner: createQuickJsCodeRunner(), now: () => Date.now() },
    budgetInMs,
  };
}

/** Usage additions, as the limits store would receive them. */
const usageLedger = () => {
  const added: { ownerKey: string; period: string; executionId: string; costInUsd: number }[] = [];
  return {
    added,
    addRunCost: async (ownerKey: string, period: string, executionId: string, costInUsd: number) =>
      void added.push({ ownerKey, period, executionId, costInUsd }),
  };
};

// Sync runs have no job to settle.
const noJobs = {
  recordDuration: async () => expect.unreachable('a sync run settles no job'),
};

describe('executeStep', () => {
  it('finishes a short run in one step with the result inline and stores no checkpoint', async () => {
    const checkpoints = new MemoryCheckpoints();
    const outcome = await executeStep(stepDeps('return <start.n> * 21;', 60_000, checkpoints), state());
    expect(outcome.status).toBe('done');
    expect(outcome.status === 'done' && 'output' in outcome.result && outcome.result.output).toBe(42);
    expect(checkpoints.items.size).toBe(0);
  });

  it('checkpoints when the budget runs out and resumes to the same result, then drops the checkpoint', async () => {
    const checkpoints = new MemoryCheckpoints();
    const deps = stepDeps('return <start.n> * 21;', 0, checkpoints);
    const first = await executeStep(deps, state());
    expect(first).toEqual({ status: 'running' });
    expect(checkpoints.items.has('exec-1')).toBe(true);

    let outcome = first;
    for (let step = 0; step < 10 && outcome.status !== 'done'; step++) {
      outcome = await executeStep({ ...deps, budgetInMs: 60_000 }, state({ step: outcome }));
    }
    expect(outcome.status === 'done' && 'output' in outcome.result && outcome.result.output).toBe(42);
    expect(checkpoints.items.has('exec-1')).toBe(false);
  });

  it('fails clearly when a resumed run has lost its checkpoint', async () => {
    const attempt = executeStep(stepDeps('return 1;', 60_000), state({ step: { status: 'running' } }));
    await expect(attempt).rejects.toThrow('Checkpoint of execution exec-1 is missing');
  });

  it("refuses a block the state's permission group policy does not allow, naming it, before anything runs", async () => {
    const policy = { groupId: 'pg_1', groupName: 'Contractors', allowedBlocks: ['function'] };
    const outcome = await executeStep(stepDeps('return 1;', 60_000), state({ policy }));
    expect(outcome).toMatchObject({
      status: 'done',
      result: {
        success: false,
        error:
          'Block "Respond" (response): block type "response" is not allowed by permission group "Contractors" (allowed: function)',
      },
    });
  });

  it('hands a result over the inline limit over by reference', async () => {
    const checkpoints = new MemoryCheckpoints();
    const code = `return 'x'.repeat(${inlineResultLimitInBytes + 10});`;
    const outcome = await executeStep(stepDeps(code, 60_000, checkpoints), state());
    expect(outcome).toEqual({ status: 'done', result: { resultRef: 'exec-1#result' } });
    expect(checkpoints.items.has('exec-1#result')).toBe(true);
  });
});

describe('finalizeRun', () => {
  const logs = () => {
    const written: ExecutionLogEntry[] = [];
    return { written, store: { putLogEntry: async (entry: ExecutionLogEntry) => written.push(entry) > 0 } };
  };
  const now = () => new Date('2026-01-01T00:00:01.500Z');
  /** Finalize's dependencies with nothing charged, writing the log to `store`. */
  const finalizeDeps = (store: ReturnType<typeof logs>['store']) => ({
    logs: store,
    checkpoints: new MemoryCheckpoints(),
    jobs: noJobs,
    usage: usageLedger(),
    now,
    baseChargePerRunInUsd: 0,
  });

  it('writes the log entry under the id of the execution and answers the sync result', async () => {
    const { written, store } = logs();
    const done = await executeStep(stepDeps('return 5;', 60_000), state());
    const answer = await finalizeRun(finalizeDeps(store), state({ step: done }));
    expect(written[0]).toMatchObject({
      id: logIdFor('exec-1'),
      level: 'info',
      trigger: 'api',
      deploymentVersion: 1,
    });
    expect(answer.httpStatus).toBe(200);
    expect(answer.body).toMatchObject({ success: true, output: 5, metadata: { executionId: 'exec-1' } });
    expect(answer.body.code).toBeUndefined();
  });

  it('stamps the entry with the time it is written, its place in the log', async () => {
    // Prepare
    const { written, store } = logs();
    const done = await executeStep(stepDeps('return 5;', 60_000), state());

    // Act
    await finalizeRun(finalizeDeps(store), state({ step: done }));

    // Assess
    expect(written[0]?.loggedAt).toBe('2026-01-01T00:00:01.500Z');
    expect(written[0]?.workflowState).toBeUndefined();
  });

  it("keeps a draft run's graph with its entry: the draft may change after the run", async () => {
    // Prepare
    const { written, store } = logs();
    const draftGraph = graph('return 7;');
    const done = await executeStep(stepDeps('return 7;', 60_000), state());

    // Act
    await finalizeRun(
      {
        ...finalizeDeps(store),
        drafts: { getWorkflow: async () => ({ state: draftGraph }) as never },
      },
      state({ step: done, deploymentVersion: 0, trigger: 'manual' }),
    );

    // Assess
    expect(written[0]).toMatchObject({ deploymentVersion: 0, workflowState: draftGraph });
  });

  it('loads a result handed over by reference and then removes it', async () => {
    const { written, store } = logs();
    const checkpoints = new MemoryCheckpoints();
    const big = await executeStep(
      stepDeps(`return 'y'.repeat(${inlineResultLimitInBytes + 1});`, 60_000, checkpoints),
      state(),
    );
    const answer = await finalizeRun(
      {
        logs: store as never,
        checkpoints,
        jobs: noJobs,
        usage: usageLedger(),
        now,
        baseChargePerRunInUsd: 0,
      },
      state({ step: big }),
    );
    expect(typeof answer.body.output).toBe('string');
    expect(written[0].executionData.finalOutput).toBe(answer.body.output);
    expect(checkpoints.items.size).toBe(0);
  });

  it('turns a caught step failure into a failed run logged as error with status 500', async () => {
    const { written, store } = logs();
    const cause = JSON.stringify({
      errorType: 'Error',
      errorMessage: 'Deployment 1 of workflow wf_1 is missing',
    });
    const answer = await finalizeRun(
      finalizeDeps(store),
      state({ failure: { Error: 'Error', Cause: cause } }),
    );
    expect(answer.httpStatus).toBe(500);
    expect(answer.body).toMatchObject({
      success: false,
      error: 'The run failed: Deployment 1 of workflow wf_1 is missing',
      code: 'EXECUTION_ERROR',
    });
    expect(written[0]).toMatchObject({ level: 'error', totalDurationMs: 1500 });
  });
});

describe('base charge', () => {
  it('adds the base charge per run to the cost of the log entry', async () => {
    const written: ExecutionLogEntry[] = [];
    const done = await executeStep(stepDeps('return 5;', 60_000), state());
    await finalizeRun(
      {
        logs: { putLogEntry: async (entry: ExecutionLogEntry) => written.push(entry) > 0 } as never,
        checkpoints: new MemoryCheckpoints(),
        jobs: noJobs,
        usage: usageLedger(),
        now: () => new Date('2026-01-01T00:00:01.000Z'),
        baseChargePerRunInUsd: 0.002,
      },
      state({ step: done }),
    );
    expect(written[0].cost.total).toBeCloseTo(0.002, 10);
  });

  it("adds the run's cost to its owner's usage in the month the run started", async () => {
    // Prepare
    const usage = usageLedger();
    const done = await executeStep(stepDeps('return 5;', 60_000), state());

    // Act
    await finalizeRun(
      {
        logs: { putLogEntry: async () => undefined } as never,
        checkpoints: new MemoryCheckpoints(),
        jobs: noJobs,
        usage,
        now: () => new Date('2026-02-01T00:00:01.000Z'),
        baseChargePerRunInUsd: 0.002,
      },
      state({ step: done, usageOwner: 'org#org_1', startedAt: '2026-01-31T23:59:59.000Z' }),
    );

    // Assess
    expect(usage.added).toEqual([
      { ownerKey: 'org#org_1', period: '2026-01', executionId: state().executionId, costInUsd: 0.002 },
    ]);
  });
});

describe('environment', () => {
  it('gives {{NAME}} values to the run and redacts them from everything it hands on', async () => {
    const reads: string[] = [];
    const deps = {
      ...stepDeps("return 'token=' + {{API_TOKEN}};", 60_000),
      environmentOf: async (workspaceId: string) => {
        reads.push(workspaceId);
        return { API_TOKEN: 'sk-very-secret' };
      },
    };
    const outcome = await executeStep(deps, state());
    expect(reads).toEqual(['ws_1']);
    expect(outcome.status).toBe('done');
    const text = JSON.stringify(outcome);
    expect(text).not.toContain('sk-very-secret');
    expect(outcome.status === 'done' && 'output' in outcome.result && outcome.result.output).toBe(
      'token=[REDACTED]',
    );
  });

  it('does not read the environment for a graph that cannot use it', async () => {
    let reads = 0;
    const deps = {
      ...stepDeps('return 1;', 60_000),
      environmentOf: async () => {
        reads += 1;
        return {};
      },
    };
    await executeStep(deps, state());
    expect(reads).toBe(0);
  });
});

describe('failureMessage', () => {
  it('names a time-out', () => {
    expect(failureMessage({ Error: 'States.Timeout', Cause: '' })).toBe('The run timed out');
  });

  it('keeps a Cause that is not JSON', () => {
    expect(failureMessage({ Error: 'Error', Cause: 'plain words' })).toBe('The run failed: plain words');
  });

  it('says the run failed when nothing more is known', () => {
    expect(failureMessage(undefined)).toBe('The run failed');
  });
});
