/** The execution log: a workspace's entries, one entry, one run. Spread into the route table (catalog/routes.ts). */
import * as logs from './log-schemas';
import type { ResourceAccess } from './resources';
import type { RouteDefinition } from './route-definition';
import * as s from './schemas';

/** Log reads: entries and their large parts, workflows (names, folders, deployments), the cursor secret. */
const logAccess = {
  tables: { entities: 'read', executions: 'read' },
  buckets: { files: 'read' },
  secrets: { logCursor: 'read' },
} as const satisfies ResourceAccess;

/** One execution's detail, at /api/v1/logs/executions/{id} and at a delivery's links.execution. */
const executionDetailRead = {
  method: 'GET',
  auth: 'apiKey',
  permission: 'read',
  tag: 'logs',
  request: { params: logs.executionIdParams },
  responses: { 200: { description: 'Execution detail (no data wrapper)', body: logs.executionDetail } },
  access: logAccess,
} as const;

/** One log entry, at /api/v1/logs/{id} and at a delivery's links.log. */
const logDetailRead = {
  method: 'GET',
  auth: 'apiKey',
  permission: 'read',
  tag: 'logs',
  request: { params: logs.logIdParams },
  responses: { 200: { description: 'Log entry detail', body: s.data(logs.logDetail) } },
  access: logAccess,
} as const;

export const logRoutes = [
  // The execution log
  {
    id: 'listLogs',
    method: 'GET',
    path: '/api/v1/logs',
    entry: 'functions/logs/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary:
      "Query a workspace's log: filters, time order either way, signed cursors; a page is full unless the data ends or its read budget is spent",
    tag: 'logs',
    request: { query: logs.listLogsQuery },
    responses: { 200: { description: 'A page of log entries', body: logs.logList } },
    access: logAccess,
  },
  {
    id: 'getLogExecution',
    path: '/api/v1/logs/executions/{executionId}',
    entry: 'functions/logs/execution.ts',
    summary: 'The graph a run executed (its deployment, or the draft it ran) and its metadata',
    ...executionDetailRead,
  },
  {
    id: 'getLog',
    path: '/api/v1/logs/{id}',
    entry: 'functions/logs/get.ts',
    summary: 'One log entry with its trace spans, final output and full cost',
    ...logDetailRead,
  },
  // The paths a delivery's `links` carry, as the interface writes them (no /api): the same answers.
  {
    id: 'getLogLink',
    path: '/v1/logs/{id}',
    entry: 'functions/logs/get-link.ts',
    summary: "A delivery's links.log: the same as GET /api/v1/logs/{id}",
    ...logDetailRead,
  },
  {
    id: 'getLogExecutionLink',
    path: '/v1/logs/executions/{executionId}',
    entry: 'functions/logs/execution-link.ts',
    summary: "A delivery's links.execution: the same as GET /api/v1/logs/executions/{executionId}",
    ...executionDetailRead,
  },
] as const satisfies readonly RouteDefinition[];
