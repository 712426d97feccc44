/**
 * The local state machine's own cost: a sync run of trivial Step and Finalize tasks through the
 * interpreter, against calling the two functions directly in the same run.
 */
import type { ExecutionAnswer, ExecutionRequest, ExecutionState, StepOutcome } from '../core/runs/types';
import { createLocalExecutionStarter } from '../local/emulators/step-functions';

export interface StateMachineBench {
  perRunInMs: number;
  directPerRunInMs: number;
  overheadInMicroseconds: number;
}

const request: ExecutionRequest = {
  executionId: 'bench',
  workflowId: 'wf',
  workspaceId: 'ws',
  userId: 'user',
  deploymentVersion: 1,
  trigger: 'api',
  input: {},
  startedAt: new Date(0).toISOString(),
  mode: 'sync',
};
const done: StepOutcome = { status: 'done', result: { resultRef: 'r' } };
const step = async (): Promise<StepOutcome> => done;
const finalize = async (state: ExecutionState) => ({ httpStatus: 200, state }) as unknown as ExecutionAnswer;

async function perRun(run: () => Promise<unknown>, runs: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return (performance.now() - started) / runs;
}

export async function benchStateMachine(runs = 5000): Promise<StateMachineBench> {
  const starter = createLocalExecutionStarter({ step, finalize });
  await perRun(() => starter.startSync(request), 500);
  // The best of three batches of each, so one busy moment does not decide the figure.
  let viaMachine = Number.POSITIVE_INFINITY;
  let direct = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < 3; batch++) {
    viaMachine = Math.min(viaMachine, await perRun(() => starter.startSync(request), runs));
    direct = Math.min(direct, await perRun(async () => finalize({ ...request, step: await step() }), runs));
  }
  return {
    perRunInMs: viaMachine,
    directPerRunInMs: direct,
    overheadInMicroseconds: Math.round((viaMachine - direct) * 1000),
  };
}

export function printStateMachineBench(result: StateMachineBench): void {
  console.log('\nLocal state machine, a sync run of trivial tasks');
  console.log(
    `  ${(result.perRunInMs * 1000).toFixed(1)} µs/run vs ${(result.directPerRunInMs * 1000).toFixed(1)} µs calling ` +
      `the tasks directly (${(result.perRunInMs / result.directPerRunInMs).toFixed(1)}×); overhead ${result.overheadInMicroseconds} µs`,
  );
}
