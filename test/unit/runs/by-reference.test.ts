import { describe, expect, it, vi } from 'vitest';
import { block } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';
import {
  answerForMachine,
  type FinalizeOutput,
  type StateMachineStarter,
  startingByReference,
} from '../../../core/runs/by-reference';
import type { ExecutionLogEntry } from '../../../core/runs/log';
import { executeStep, finalizeRun } from '../../../core/runs/service';
import type { ExecutionAnswer, ExecutionRequest } from '../../../core/runs/types';
import { MemoryCheckpoints, runState } from '../../support/runs';

/** 5 MB of text: a Start block output within the 5 MB (5,242,880 bytes) a block may output. */
const fiveMegabytes = 5_000_000;

const request = (input: Record<string, unknown>, mode: 'sync' | 'async' = 'sync'): ExecutionRequest =>
  runState({ input, mode });

const answerWith = (output: unknown): ExecutionAnswer => ({
  httpStatus: 200,
  headers: {},
  body: {
    success: true,
    output,
    metadata: {
      duration: 1,
      executionId: 'exec-1',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:00.001Z',
      cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
    },
    traceSpans: [{ name: 'work' }],
    logs: [],
    totalDuration: 1,
  },
});

/** A machine that records what it was started with and answers Finalize's output. */
function machine(output: FinalizeOutput = answerWith('small')) {
  const started: ExecutionRequest[] = [];
  const starter: StateMachineStarter = {
    startSync: vi.fn(async (started_: ExecutionRequest) => {
      started.push(started_);
      return output;
    }),
    startAsync: vi.fn(async (started_: ExecutionRequest) => void started.push(started_)),
    stopAsync: vi.fn(async () => undefined),
  };
  return { starter, started };
}

describe('startingByReference', () => {
  it('starts a sync run of a 5 MB input with the input in the store and a request under 256 KB', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const { starter, started } = machine();
    const input = { text: 'x'.repeat(fiveMegabytes) };

    // Act
    await startingByReference(starter, checkpoints).startSync(request(input));

    // Assess
    expect(started[0]).toMatchObject({ input: {}, inputRef: 'exec-1#input' });
    expect(Buffer.byteLength(JSON.stringify(started[0]))).toBeLessThan(262_144);
    expect(checkpoints.items.get('exec-1#input')).toEqual(input);
  });

  it('starts an async run of a large input by reference too', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const { starter, started } = machine();

    // Act
    await startingByReference(starter, checkpoints).startAsync(
      request({ text: 'x'.repeat(100 * 1024) }, 'async'),
    );

    // Assess
    expect(started[0]).toMatchObject({ input: {}, inputRef: 'exec-1#input', mode: 'async' });
  });

  it('carries a small input inline and stores nothing', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const { starter, started } = machine();

    // Act
    await startingByReference(starter, checkpoints).startSync(request({ n: 2 }));

    // Assess
    expect(started[0].input).toEqual({ n: 2 });
    expect(started[0].inputRef).toBeUndefined();
    expect(checkpoints.items.size).toBe(0);
  });

  it('answers a sync run with the answer Finalize put in the store, and removes it', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const answer = answerWith('y'.repeat(300 * 1024));
    await checkpoints.saveJson('exec-1#answer', JSON.stringify(answer));
    const { starter } = machine({ answerRef: 'exec-1#answer' });

    // Act
    const answered = await startingByReference(starter, checkpoints).startSync(request({ n: 2 }));

    // Assess
    expect(answered).toEqual(answer);
    expect(checkpoints.items.has('exec-1#answer')).toBe(false);
  });
});

describe('answerForMachine', () => {
  it('puts a sync answer over 200 KB in the store and hands back its reference', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const answer = answerWith('y'.repeat(300 * 1024));

    // Act
    const output = await answerForMachine(checkpoints, request({}), answer);

    // Assess
    expect(output).toEqual({ answerRef: 'exec-1#answer' });
    expect(checkpoints.items.get('exec-1#answer')).toEqual(answer);
  });

  it('hands back a large async answer without its output and spans, which nobody reads', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();

    // Act
    const output = await answerForMachine(
      checkpoints,
      request({}, 'async'),
      answerWith('y'.repeat(300 * 1024)),
    );

    // Assess
    expect(output).toMatchObject({ httpStatus: 200, body: { success: true, traceSpans: [] } });
    expect('output' in (output as ExecutionAnswer).body).toBe(false);
    expect(checkpoints.items.size).toBe(0);
  });

  it('hands back a small answer as it is', async () => {
    // Prepare
    const answer = answerWith('small');

    // Act
    const output = await answerForMachine(new MemoryCheckpoints(), request({}), answer);

    // Assess
    expect(output).toEqual(answer);
  });
});

describe('a run whose input travelled by reference', () => {
  const graph: WorkflowGraph = {
    blocks: {
      start: block('start', 'start', 'Start', { inputFormat: [{ name: 'text', type: 'string' }] }),
      work: block('work', 'function', 'Work', { code: 'return <start.text>.length;' }),
    },
    edges: [{ id: 'e1', source: 'start', target: 'work' }],
    loops: {},
    parallels: {},
  };

  it('runs on the stored input, and Finalize removes it', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpoints();
    const text = 'x'.repeat(40 * 1024);
    const { starter, started } = machine();
    await startingByReference(starter, checkpoints).startSync(request({ text }));
    const state = started[0];
    const written: ExecutionLogEntry[] = [];

    // Act
    const outcome = await executeStep(
      {
        deployments: {
          getDeployment: async () => ({
            workflowId: 'wf_1',
            workspaceId: 'ws_1',
            version: 1,
            state: graph,
            stateHash: 'h',
            deployedAt: '2026-01-01T00:00:00.000Z',
            deployedBy: 'usr_1',
          }),
        },
        checkpoints,
        engine: { codeRunner: createQuickJsCodeRunner(), now: () => Date.now() },
        budgetInMs: 60_000,
      },
      state,
    );
    const answer = await finalizeRun(
      {
        logs: { putLogEntry: async (entry) => written.push(entry) > 0 },
        checkpoints,
        jobs: { recordDuration: async () => undefined } as never,
        usage: { addRunCost: async () => undefined },
        now: () => new Date('2026-01-01T00:00:01.000Z'),
        baseChargePerRunInUsd: 0,
      },
      { ...state, step: outcome },
    );

    // Assess
    expect(state.inputRef).toBe('exec-1#input');
    expect(answer.body).toMatchObject({ success: true, output: { result: 40 * 1024 } });
    expect(written).toHaveLength(1);
    expect(checkpoints.items.has('exec-1#input')).toBe(false);
  });
});
