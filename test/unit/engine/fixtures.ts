import type {
  Block,
  CodeRunner,
  CodeRunRequest,
  Edge,
  EngineDeps,
  RunContext,
  TraceSpan,
  WorkflowGraph,
  WorkflowLoader,
} from '../../../core/engine/types';
import type { StepOptions } from '../../../core/engine/run';

export function block(
  id: string,
  type: string,
  name: string,
  config: Record<string, unknown> = {},
  extra: Partial<Block> = {},
): Block {
  return { id, type, name, config, ...extra };
}

let edgeCounter = 0;

export function edge(source: string, target: string, sourceHandle?: string): Edge {
  edgeCounter += 1;
  return { id: `e${edgeCounter}`, source, target, ...(sourceHandle ? { sourceHandle } : {}) };
}

export function graphOf(blocks: Block[], edges: Edge[] = []): WorkflowGraph {
  return { blocks: Object.fromEntries(blocks.map((b) => [b.id, b])), edges, loops: {}, parallels: {} };
}

export const startedAt = '2026-01-01T00:00:00.000Z';

export function contextOf(
  graph: WorkflowGraph,
  input: Record<string, unknown> = {},
  environment: Record<string, string> = {},
): RunContext {
  return {
    executionId: 'exec-1',
    workflowId: 'wf-1',
    workspaceId: 'ws-1',
    trigger: 'api',
    input,
    graph,
    environment,
    startedAt,
  };
}

/** A clock that moves only when told to, so durations in spans are exact. */
export function fakeClock(start = Date.parse(startedAt)) {
  let now = start;
  return {
    now: () => now,
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

export interface RecordingRunner extends CodeRunner {
  requests: CodeRunRequest[];
  /** Most code runs seen in flight at the same moment. */
  maxInFlight: number;
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...parameters: string[]
) => (...args: unknown[]) => Promise<unknown>;

/**
 * Evaluates code in this process, no sandbox: the engine's tests are about scheduling and data flow,
 * the sandbox has its own. Errors read like the sandbox's (`Name: message`). Each run yields to the
 * event loop first, so runs started together really overlap.
 */
export function inProcessRunner(
  options: { onRun?: (request: CodeRunRequest) => void } = {},
): RecordingRunner {
  let inFlight = 0;
  const runner: RecordingRunner = {
    requests: [],
    maxInFlight: 0,
    async run(request) {
      runner.requests.push(request);
      options.onRun?.(request);
      inFlight += 1;
      runner.maxInFlight = Math.max(runner.maxInFlight, inFlight);
      try {
        await Promise.resolve();
        const lines: string[] = [];
        const console = { log: (...args: unknown[]) => lines.push(args.map(String).join(' ')) };
        const result = await new AsyncFunction('console', request.code)(console);
        return { result, stdout: lines.map((line) => `${line}\n`).join('') };
      } catch (error) {
        const { name, message } = error as Error;
        throw new Error(`${name}: ${message}`);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return runner;
}

/** Engine deps on a fake clock; `sleep` moves the clock instead of waiting. */
export function depsOf(
  codeRunner: CodeRunner,
  clock = fakeClock(),
  extra: Partial<EngineDeps> = {},
): EngineDeps {
  return {
    codeRunner,
    now: clock.now,
    sleep: async (milliseconds) => {
      clock.advance(milliseconds);
    },
    ...extra,
  };
}

export function stepOptions(budgetInMs = 60_000, environment: Record<string, string> = {}): StepOptions {
  return { budgetInMs, environment };
}

export interface CancellableRunner extends CodeRunner {
  requests: CodeRunRequest[];
  /** Code of the runs that saw their abort signal fire. */
  aborted: string[];
}

/**
 * Evaluates code in this process like `inProcessRunner`, with one more global: `hang()`, a promise
 * that settles only when the request's abort signal fires (it then records the run as aborted and
 * rejects), standing in for slow work that must be told to stop.
 */
export function cancellableRunner(): CancellableRunner {
  const runner: CancellableRunner = {
    requests: [],
    aborted: [],
    async run(request) {
      runner.requests.push(request);
      const { signal } = request;
      const hang = () =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            runner.aborted.push(request.code);
            reject(signal.reason);
          });
        });
      await Promise.resolve();
      try {
        return { result: await new AsyncFunction('hang', request.code)(hang), stdout: '' };
      } catch (error) {
        const { name, message } = error as Error;
        throw new Error(`${name}: ${message}`);
      }
    },
  };
  return runner;
}

/** Deployed child workflows by id, recording what was asked for. */
export function loaderOf(graphs: Record<string, WorkflowGraph>): WorkflowLoader & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async loadDeployed(workspaceId, workflowId) {
      calls.push([workspaceId, workflowId]);
      return graphs[workflowId];
    },
  };
}

/** The spans under the root span. */
export function blockSpans(spans: TraceSpan[]): TraceSpan[] {
  return spans[0].children ?? [];
}

/** A span found by name anywhere in the tree (first match, depth first). */
export function findSpan(spans: TraceSpan[], name: string): TraceSpan | undefined {
  for (const span of spans) {
    if (span.name === name) return span;
    const found = findSpan(span.children ?? [], name);
    if (found) return found;
  }
  return undefined;
}
