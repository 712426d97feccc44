/**
 * The contract of the workflow engine: graph format (docs/workflows.md), trace spans, cost, run results,
 * and the ports the engine needs. Everything here is JSON-serializable.
 */

import type { FileAccess } from '../files/block-access';
import type { HttpClient } from '../net/http';
import type { AccessPolicy } from '../permissions/types';
import type { Trigger } from '../triggers';

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
  trigger: Trigger;
  /** Input already validated and coerced against the Start block (see validateStartInput). */
  input: Record<string, unknown>;
  graph: WorkflowGraph;
  /** Workspace environment variables for `{{NAME}}`, already decrypted. */
  environment: Record<string, string>;
  startedAt: string;
  /**
   * The restrictions of the acting user's permission group (core/permissions): a block they do not
   * allow, in this workflow or a child workflow, fails the run before it runs. None: full access.
   */
  policy?: AccessPolicy;
}

/** Port: runs untrusted JavaScript in an isolated sandbox. */
export interface CodeRunRequest {
  /** Body of an async function; `return` gives the result. */
  code: string;
  /** When given, the sandbox offers `fetch`, and every call goes through this client (the guard). */
  http?: HttpClient;
  timeoutInMs: number;
  memoryLimitInBytes: number;
  /** Aborted when the run no longer needs the result (the run failed or ended, or its branch was cancelled). */
  signal?: AbortSignal;
  /** A result larger than this, as JSON, fails the block before it leaves the sandbox. */
  maxResultBytes?: number;
  /** Whose run this is: the sandbox shares its workers fairly between workspaces. */
  workspaceId?: string;
}

export interface CodeRunResult {
  result: unknown;
  stdout: string;
}

export interface CodeRunner {
  run(request: CodeRunRequest): Promise<CodeRunResult>;
}

/** Ports and settings the engine runs with. */
export interface EngineDeps extends EnginePorts {
  codeRunner: CodeRunner;
  /** Milliseconds since the epoch; injected so tests control time. */
  now: () => number;
  /** Time limit of a function block that sets no `timeoutMs`. */
  functionTimeoutInMs?: number;
  /** Ceiling of a function block's `timeoutMs`: a larger one is cut to this (default 60 s). */
  functionMaxTimeoutInMs?: number;
  functionMemoryLimitInBytes?: number;
  /** Sleeps in-process (short `wait` blocks, `runToCompletion` through a waiting step); injected so tests control time. Default: a timer. */
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Ports added for the complete engine. Each is optional in EngineDeps: a run that uses a block
// needing a missing port fails that block with a clear error.
// ---------------------------------------------------------------------------------------------

/** A JSON Schema object, as given in an agent's `responseFormat`. */
export type JsonSchema = Record<string, unknown>;

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ModelRequest {
  /** `openai` (or any OpenAI-compatible `baseUrl`), `anthropic`, `bedrock`. */
  provider: string;
  model: string;
  systemPrompt?: string;
  messages: ModelMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for a structured answer matching this schema; the response then carries `structured`. */
  responseFormat?: JsonSchema;
  apiKey?: string;
  baseUrl?: string;
  /** Bedrock only: the region of the model. */
  region?: string;
  timeoutInMs: number;
  /** Aborted when the run no longer needs the answer (the run failed, or the branch was pruned). */
  signal?: AbortSignal;
  /** Called with each text chunk as it arrives; when given, the provider is called in streaming mode. */
  onChunk?: (text: string) => void;
}

export interface ModelResponse {
  content: string;
  /** The model that answered, as the provider reports it. */
  model: string;
  /** Counted from the provider's own usage report, never estimated. */
  tokens: TokenCounts;
  /** The parsed answer when `responseFormat` was given. */
  structured?: unknown;
}

/** Port: one entry to every model provider. */
export interface ModelGateway {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** USD per million tokens, per model, as of `effectiveDate`. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  effectiveDate: string;
}

/** Port: prices of models; unknown models cost nothing and are reported as unpriced. */
export interface PricingTable {
  priceOf(model: string): ModelPrice | undefined;
}

/** Port: child workflows run by a `workflow` block, from the same workspace. */
export interface WorkflowLoader {
  /** The deployed graph of a workflow in this workspace, or undefined if none. */
  loadDeployed(workspaceId: string, workflowId: string): Promise<WorkflowGraph | undefined>;
}

/** Limits of containers and nesting; defaults in the engine. */
export interface EngineLimits {
  maxLoopIterations: number;
  maxParallelBranches: number;
  /** Branches of one parallel that run at the same time. */
  parallelConcurrency: number;
  maxWorkflowDepth: number;
  /** One block's output, as JSON; a block whose output is larger fails. */
  maxBlockOutputBytes: number;
  /** The run's output (what a sync caller gets in `output`), as JSON; a larger one fails the run. */
  maxRunOutputBytes: number;
  /**
   * A trace span's input or output value above this is replaced by a note of its size, so a large
   * value is kept once (in the block's output) instead of again in every span that shows it.
   */
  maxSpanValueBytes: number;
}

export interface EnginePorts {
  models?: ModelGateway;
  pricing?: PricingTable;
  http?: HttpClient;
  workflows?: WorkflowLoader;
  /** Files of the run's workspace: stored files, URLs, and reading documents (the File block). */
  files?: FileAccess;
  limits?: Partial<EngineLimits>;
  /** Streaming: text chunks of model blocks as they arrive. */
  onChunk?: (blockId: string, chunk: string) => void;
  /** Streaming: the output of each block of the run's own graph as it completes (inside containers, per iteration). */
  onBlockOutput?: (blockId: string, output: unknown) => void;
}
