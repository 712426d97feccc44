/**
 * In-process engine benchmark, no I/O: what the step runner costs per block, what a sandboxed
 * function block costs, and a baseline measured in the same run so the figures read as ratios on
 * any machine. `npx tsx bench/engine.ts` prints them; `bench/run.ts` may call `benchEngine()`.
 *
 * - plain block: a chain of `variables` blocks (no sandbox), whole runs timed, divided by length;
 * - function block: a chain of `function` blocks (`return 1`) through the sandbox pool (worker
 *   threads, as the service runs them), beside the same chain on QuickJS in this thread;
 * - baseline: a plain loop awaiting an async no-op, per call.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createSandboxPool } from '../adapters/sandbox/pool';
import { createQuickJsCodeRunner } from '../adapters/sandbox/quickjs';
import { block, edge, graphOf } from '../core/engine/builders';
import { runToCompletion } from '../core/engine/run';
import type { Block, CodeRunner, EngineDeps, Edge, RunContext, WorkflowGraph } from '../core/engine/types';

export interface EngineBenchResult {
  plainBlockOverheadInUs: number;
  functionBlockInMs: number;
  details: Record<string, number>;
}

const plainChainLength = 200;
const longChainLength = 800;
const plainRounds = 40;
const functionChainLength = 50;
const functionRounds = 6;
const baselineCalls = 200_000;
const loopIterations = 1000;

function inside(parentId: string, child: Block): Block {
  return { ...child, parentId };
}

function chainOf(length: number, make: (index: number) => Block): WorkflowGraph {
  const blocks: Block[] = [block('start', 'start', 'Start')];
  const edges: Edge[] = [];
  let previous = 'start';
  for (let index = 1; index <= length; index++) {
    const next = make(index);
    blocks.push(next);
    edges.push(edge(previous, next.id));
    previous = next.id;
  }
  return graphOf(blocks, edges);
}

function contextOf(graph: WorkflowGraph): RunContext {
  return {
    executionId: 'bench',
    workflowId: 'bench',
    workspaceId: 'bench',
    trigger: 'manual',
    input: {},
    graph,
    environment: {},
    startedAt: new Date().toISOString(),
  };
}

/** Median of the rounds, in milliseconds, after one warm-up round. */
async function timeRuns(rounds: number, run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const startedAt = performance.now();
    await run();
    times.push(performance.now() - startedAt);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function runOrFail(graph: WorkflowGraph, deps: EngineDeps): Promise<void> {
  const result = await runToCompletion(contextOf(graph), deps);
  if (!result.success) throw new Error(`Benchmark workflow failed: ${result.error}`);
}

const noopRunner: CodeRunner = {
  async run() {
    return { result: undefined, stdout: '' };
  },
};

async function asyncNoop(value: number): Promise<number> {
  return value;
}

/** Microseconds per awaited call of an async no-op in a plain loop. */
async function baselineAsyncCallInUs(): Promise<number> {
  const loop = async () => {
    let sum = 0;
    for (let index = 0; index < baselineCalls; index++) sum += await asyncNoop(index);
    return sum;
  };
  return ((await timeRuns(5, loop)) * 1000) / baselineCalls;
}

export async function benchEngine(): Promise<EngineBenchResult> {
  const plainDeps: EngineDeps = { codeRunner: noopRunner, now: Date.now };
  const plainChain = chainOf(plainChainLength, (index) =>
    block(`v${index}`, 'variables', `v${index}`, {
      assignments: [{ name: 'last', value: index === 1 ? 0 : `<v${index - 1}.last>` }],
    }),
  );
  const plainRunInMs = await timeRuns(plainRounds, () => runOrFail(plainChain, plainDeps));
  const plainBlockOverheadInUs = (plainRunInMs * 1000) / plainChainLength;
  // Per-block cost of a chain four times as long: near 1× means a run's cost grows linearly.
  const longChain = chainOf(longChainLength, (index) =>
    block(`v${index}`, 'variables', `v${index}`, {
      assignments: [{ name: 'last', value: index === 1 ? 0 : `<v${index - 1}.last>` }],
    }),
  );
  const longRunInMs = await timeRuns(plainRounds / 4, () => runOrFail(longChain, plainDeps));
  const longBlockInUs = (longRunInMs * 1000) / longChainLength;

  const functionChain = chainOf(functionChainLength, (index) =>
    block(`f${index}`, 'function', `f${index}`, { code: 'return 1' }),
  );
  const sandboxCallInMs = async (deps: EngineDeps) =>
    (await timeRuns(functionRounds, async () => {
      for (let index = 0; index < functionChainLength; index++) {
        await deps.codeRunner.run({ code: 'return 1', timeoutInMs: 10_000, memoryLimitInBytes: 64 << 20 });
      }
    })) / functionChainLength;
  const inThread: EngineDeps = { codeRunner: createQuickJsCodeRunner(), now: Date.now };
  const inThreadBlockInMs =
    (await timeRuns(functionRounds, () => runOrFail(functionChain, inThread))) / functionChainLength;
  const inThreadCallInMs = await sandboxCallInMs(inThread);
  const pool = createSandboxPool();
  const pooled: EngineDeps = { codeRunner: pool, now: Date.now };
  const functionBlockInMs =
    (await timeRuns(functionRounds, () => runOrFail(functionChain, pooled))) / functionChainLength;
  const pooledCallInMs = await sandboxCallInMs(pooled);
  await pool.close();

  const loop = graphOf(
    [
      block('start', 'start', 'Start'),
      block('l', 'loop', 'Loop', { loopType: 'for', iterations: loopIterations }),
      inside('l', block('b', 'variables', 'Body', { assignments: [{ name: 'i', value: '<loop.index>' }] })),
    ],
    [edge('start', 'l')],
  );
  const loop1000InMs = await timeRuns(5, () => runOrFail(loop, plainDeps));
  const parallel = graphOf(
    [
      block('start', 'start', 'Start'),
      block('p', 'parallel', 'Fan', { parallelType: 'count', count: 100 }),
      inside(
        'p',
        block('b', 'variables', 'Branch', { assignments: [{ name: 'i', value: '<parallel.index>' }] }),
      ),
    ],
    [edge('start', 'p')],
  );
  const parallel100InMs = await timeRuns(10, () => runOrFail(parallel, plainDeps));

  const baselineInUs = await baselineAsyncCallInUs();
  const round = (value: number, digits = 3) => Number(value.toFixed(digits));
  return {
    plainBlockOverheadInUs: round(plainBlockOverheadInUs),
    functionBlockInMs: round(functionBlockInMs),
    details: {
      plainChainLength,
      plainChainRunInMs: round(plainRunInMs),
      baselineAsyncCallInUs: round(baselineInUs, 4),
      plainBlockToBaselineRatio: round(plainBlockOverheadInUs / baselineInUs, 1),
      functionChainLength,
      sandboxCallInMs: round(pooledCallInMs),
      functionBlockEngineShareInMs: round(functionBlockInMs - pooledCallInMs),
      functionBlockInThreadInMs: round(inThreadBlockInMs),
      sandboxCallInThreadInMs: round(inThreadCallInMs),
      functionBlockPoolToThreadRatio: round(functionBlockInMs / inThreadBlockInMs, 2),
      loop1000IterationsInMs: round(loop1000InMs),
      loopIterationInUs: round((loop1000InMs * 1000) / loopIterations),
      longChainBlockInUs: round(longBlockInUs),
      longToShortChainRatio: round(longBlockInUs / plainBlockOverheadInUs),
      parallel100BranchesInMs: round(parallel100InMs),
    },
  };
}

export function printEngineBench(result: EngineBenchResult): void {
  const { details } = result;
  console.log('Engine, in process, no I/O');
  console.log(
    `  plain block overhead   ${result.plainBlockOverheadInUs} µs/block (chain of ${details.plainChainLength}; ` +
      `${details.plainBlockToBaselineRatio}× an awaited async no-op at ${details.baselineAsyncCallInUs} µs)`,
  );
  console.log(
    `  function block         ${result.functionBlockInMs} ms/block through the worker pool (sandbox call ` +
      `${details.sandboxCallInMs} ms; engine share ${details.functionBlockEngineShareInMs} ms)`,
  );
  console.log(
    `                         ${details.functionBlockInThreadInMs} ms/block on this thread ` +
      `(QuickJS alone ${details.sandboxCallInThreadInMs} ms); pool ${details.functionBlockPoolToThreadRatio}× that`,
  );
  console.log(
    `  chain of ${longChainLength}           ${details.longChainBlockInUs} µs/block, ` +
      `${details.longToShortChainRatio}× the chain of ${details.plainChainLength} (1× is linear growth)`,
  );
  console.log(`  loop of 1,000          ${details.loop1000IterationsInMs} ms`);
  console.log(`  parallel of 100        ${details.parallel100BranchesInMs} ms`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchEngine();
  printEngineBench(result);
  console.log(JSON.stringify(result));
}
