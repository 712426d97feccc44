/**
 * The contract of the workflow engine: graph format (DESIGN.md §4), trace spans, cost, run results,
 * and the ports the engine needs. Everything here is JSON-serializable.
 */

export type BlockType =
  | 'start'
  | 'function'
  | 'condition'
  | 'router'
  | 'agent'
  | 'api'
  | 'file'
  | 'response'
  | 'wait'
  | 'workflow'
  | 'variables'
  | 'loop'
  | 'parallel';

export interface Block {
  id: string;
  type: BlockType | string;
  name: string;
  parentId?: string | null;
  enabled?: boolean;
  config: Record<string, unknown>;
}

export interface Edge {
  id: string;
  source: string;
  target: string;
  /** `source` (default), `error`, `condition-<id>`, `router-<id>`, and for containers `loop-start`/`parallel-start` style handles. */
  sourceHandle?: string;
  targetHandle?: string;
}

export interface WorkflowGraph {
  blocks: Record<string, Block>;
  edges: Edge[];
  loops: Record<string, unknown>;
  parallels: Record<string, unknown>;
}

export type InputFieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'files';

export interface InputField {
  name: string;
  type: InputFieldType;
  required?: boolean;
  description?: string;
  default?: unknown;
}

export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

export interface ModelCost {
  input: number;
  output: number;
  total: number;
  tokens: TokenCounts;
}

/** The interface's cost object (USD). */
export interface CostSummary {
  total: number;
  tokens: TokenCounts;
  models: Record<string, ModelCost>;
}

export interface TraceSpan {
  id: string;
  name: string;
  type: string;
  blockId?: string;
  startTime: string;
  endTime: string;
  duration: number;
  status: 'success' | 'error';
  input?: unknown;
  output?: unknown;
  error?: string;
  model?: string;
  tokens?: TokenCounts;
  cost?: ModelCost;
  children?: TraceSpan[];
  loopId?: string;
  parallelId?: string;
  iterationIndex?: number;
}

/** What a finished run produced; Finalize turns it into the log entry and the sync answer. */
export interface RunResult {
  success: boolean;
  /** The response block's `data`, or the final block's output when there is no response block. */
  output: unknown;
  error?: string;
  /** HTTP status the sync caller gets: the response block's `status`, 200, or 500 on failure. */
  httpStatus: number;
  responseHeaders: Record<string, string>;
  /** Root span (type `workflow`) with one child per executed block. */
  traceSpans: TraceSpan[];
  cost: CostSummary;
  startedAt: string;
  endedAt: string;
  durationMs: number;
}

/** What a run starts from. */
export interface RunContext {
  executionId: string;
  workflowId: string;
  workspaceId: string;
  trigger: 'api' | 'webhook' | 'schedule' | 'manual' | 'chat' | 'form';
  /** Input already validated and coerced against the Start block (see validateStartInput). */
  input: Record<string, unknown>;
  graph: WorkflowGraph;
  /** Workspace environment variables for `{{NAME}}`, already decrypted. */
  environment: Record<string, string>;
  startedAt: string;
}

/** Port: runs untrusted JavaScript in an isolated sandbox. */
export interface CodeRunRequest {
  /** Body of an async function; `return` gives the result. */
  code: string;
  timeoutInMs: number;
  memoryLimitInBytes: number;
}

export interface CodeRunResult {
  result: unknown;
  stdout: string;
}

export interface CodeRunner {
  run(request: CodeRunRequest): Promise<CodeRunResult>;
}

/** Ports and settings the engine runs with. */
export interface EngineDeps {
  codeRunner: CodeRunner;
  /** Milliseconds since the epoch; injected so tests control time. */
  now: () => number;
  functionTimeoutInMs?: number;
  functionMemoryLimitInBytes?: number;
}
