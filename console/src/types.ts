/** The shapes of the public API's answers that the console reads (docs/api.md, docs/logs.md). */

export interface Workspace {
  id: string;
  name: string;
  permissions: 'read' | 'write' | 'admin';
}

export interface Block {
  id: string;
  type: string;
  name: string;
  parentId?: string | null;
  enabled?: boolean;
  config?: Record<string, unknown>;
}

export interface Edge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
}

export interface Graph {
  blocks: Record<string, Block>;
  edges: Edge[];
  loops?: Record<string, unknown>;
  parallels?: Record<string, unknown>;
}

export interface Workflow {
  id: string;
  workspaceId: string;
  name: string;
  description?: string;
  isDeployed: boolean;
  deployedAt?: string;
  needsRedeployment?: boolean;
  state?: Graph;
}

export interface InputField {
  name: string;
  type: string;
  required?: boolean;
  description?: string;
  default?: unknown;
}

export interface Cost {
  total: number;
  tokens?: { prompt: number; completion: number; total: number };
  models?: Record<
    string,
    {
      input: number;
      output: number;
      total: number;
      tokens?: { prompt: number; completion: number; total: number };
    }
  >;
}

export interface FileObject {
  id?: string;
  name: string;
  type?: string;
  size?: number;
  url?: string;
  key?: string;
}

export interface LogItem {
  id: string;
  workflowId: string;
  executionId: string;
  level: 'info' | 'error';
  trigger: string;
  startedAt: string;
  endedAt: string;
  totalDurationMs: number;
  cost: Cost;
  files: FileObject[] | null;
}

export interface LogPage {
  data: LogItem[];
  nextCursor?: string;
  pollCursor?: string;
}

export interface Span {
  id: string;
  name: string;
  type: string;
  blockId?: string;
  startTime: string;
  endTime: string;
  duration: number;
  status: string;
  input?: unknown;
  output?: unknown;
  error?: string;
  model?: string;
  tokens?: { prompt?: number; completion?: number; total?: number };
  cost?: number | { total?: number };
  children?: Span[];
  iterationIndex?: number;
}

export interface LogDetail extends LogItem {
  workflow: { id: string; name: string; deleted?: boolean };
  executionData: { traceSpans: Span[]; finalOutput: unknown; error?: string | null };
}

export interface ExecutionDetail {
  executionId: string;
  workflowId: string;
  workflowState: Graph;
}

export interface MetricsBucket {
  start: string;
  runs: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
  meanMs: number | null;
  costUsd: number;
}

export interface MetricsAnswer {
  data: MetricsBucket[];
  bucket: 'hour' | 'day';
  topFailingWorkflows: { workflowId: string; runs: number; errors: number }[];
}

export const triggers = ['api', 'webhook', 'schedule', 'manual', 'chat', 'form'] as const;
