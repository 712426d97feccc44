/** Workflows: their graphs and deployments, and runs (execute, run by hand). Spread into the route table (catalog/routes.ts). */
import * as z from './zod';
import type { ResourceAccess } from './resources';
import { type RouteDefinition, entities, entitiesWrite, workflowGraphs } from './route-definition';
import * as s from './schemas';
import * as imports from './import-schemas';

/** What starting a run takes in every mode: sync (Express machine), async (job + queue), stream (engine in process). */
const runAccess = {
  // Metrics: a streamed run, finalized here, is counted in its workspace's hour.
  tables: { entities: 'read', executions: 'readWrite', metrics: 'readWrite' },
  buckets: { files: 'readWrite' },
  // Jobs for async runs; the completion event of a streamed run, finalized here.
  queues: { jobs: 'send', notifications: 'send' },
  stateMachines: { executionSync: 'startSync' },
  keys: { environment: 'decrypt' },
  models: 'invoke',
} as const satisfies ResourceAccess;

/** Graphs and deployments may be kept in the files bucket behind a pointer: writing one may write there. */
const workflowsRead = { ...entities, ...workflowGraphs } as const satisfies ResourceAccess;
const workflowsWrite = {
  ...entitiesWrite,
  buckets: { files: 'readWrite' },
} as const satisfies ResourceAccess;

export const workflowRoutes = [
  {
    id: 'listWorkflows',
    method: 'GET',
    path: '/api/workflows',
    entry: 'functions/workflows/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Workflows of a workspace',
    tag: 'workflows',
    request: { query: s.listWorkflowsQuery },
    responses: { 200: { description: 'Workflows', body: s.data(z.array(s.workflowSummary)) } },
    access: workflowsRead,
  },
  {
    id: 'createWorkflow',
    method: 'POST',
    path: '/api/workflows',
    entry: 'functions/workflows/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Create a workflow with a graph',
    tag: 'workflows',
    request: { body: s.createWorkflowBody },
    responses: { 201: { description: 'Created', body: s.dataWithWarnings(s.workflow) } },
    access: workflowsWrite,
  },
  {
    id: 'importWorkflow',
    method: 'POST',
    path: '/api/workflows/import',
    entry: 'functions/workflows/import.ts',
    auth: 'apiKey',
    permission: 'write',
    summary:
      "Import a workflow file (Sim's export or this service's graph) as JSON, or a Sim workspace or folder archive as application/zip with workspaceId in the query (docs/import.md)",
    tag: 'workflows',
    request: { query: imports.importWorkflowQuery, body: imports.importWorkflowBody },
    rawBodyMediaTypes: ['application/zip'],
    responses: {
      201: {
        description: 'Imported: the workflow, or for an archive one answer per workflow',
        body: s.data(z.union([imports.importedWorkflow, imports.importedArchive])),
      },
      413: { description: 'The archive is larger than its limits (code PAYLOAD_TOO_LARGE)' },
      422: { description: 'Blocks that cannot run here, every one listed (code UNSUPPORTED_WORKFLOW)' },
    },
    access: workflowsWrite,
    // Archives of many workflows are unpacked, converted and stored in one request.
    timeoutInSeconds: 29,
    memoryInMb: 512,
  },
  {
    id: 'exportWorkflow',
    method: 'GET',
    path: '/api/workflows/{workflowId}/export',
    entry: 'functions/workflows/export.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "A workflow as a file: this service's graph, or with format=sim Sim's export (version 1.0)",
    tag: 'workflows',
    request: { params: s.workflowIdParams, query: imports.exportWorkflowQuery },
    responses: { 200: { description: 'The workflow file', body: imports.exportedWorkflow } },
    access: workflowsRead,
  },
  {
    id: 'getWorkflow',
    method: 'GET',
    path: '/api/workflows/{workflowId}',
    entry: 'functions/workflows/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One workflow with its current (not necessarily deployed) graph',
    tag: 'workflows',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Workflow', body: s.data(s.workflow) } },
    access: workflowsRead,
  },
  {
    id: 'updateWorkflow',
    method: 'PUT',
    path: '/api/workflows/{workflowId}',
    entry: 'functions/workflows/update.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Change name, description, folder or graph; a deployed workflow then needs redeployment',
    tag: 'workflows',
    request: { params: s.workflowIdParams, body: s.updateWorkflowBody },
    responses: { 200: { description: 'Updated', body: s.dataWithWarnings(s.workflow) } },
    access: workflowsWrite,
  },
  {
    id: 'deleteWorkflow',
    method: 'DELETE',
    path: '/api/workflows/{workflowId}',
    entry: 'functions/workflows/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Delete a workflow (its deployments stay for the execution log)',
    tag: 'workflows',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Deleted', body: s.data(s.workflowSummary) } },
    // Deploy applies the workflow's schedule, undeploy and delete withdraw it.
    access: { ...workflowsWrite, schedules: 'manage' },
  },
  {
    id: 'deployWorkflow',
    method: 'POST',
    path: '/api/workflows/{workflowId}/deploy',
    entry: 'functions/workflows/deploy.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Deploy the current graph as a new immutable snapshot',
    tag: 'workflows',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Deployed', body: s.dataWithWarnings(s.workflowStatus) } },
    // Deploy applies the workflow's schedule, undeploy and delete withdraw it.
    access: { ...workflowsWrite, schedules: 'manage' },
  },
  {
    id: 'undeployWorkflow',
    method: 'POST',
    path: '/api/workflows/{workflowId}/undeploy',
    entry: 'functions/workflows/undeploy.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Stop serving the deployed snapshot',
    tag: 'workflows',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Undeployed', body: s.data(s.workflowStatus) } },
    // Deploy applies the workflow's schedule, undeploy and delete withdraw it.
    access: { ...workflowsWrite, schedules: 'manage' },
  },
  {
    id: 'getWorkflowStatus',
    method: 'GET',
    path: '/api/workflows/{workflowId}/status',
    entry: 'functions/workflows/status.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Deployment status',
    tag: 'workflows',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Status', body: s.workflowStatus } },
    access: workflowsRead,
  },
  {
    id: 'executeWorkflow',
    method: 'POST',
    path: '/api/workflows/{workflowId}/execute',
    entry: 'functions/workflows/execute.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Run the deployed workflow and answer with its result',
    tag: 'execution',
    request: { params: s.workflowIdParams, body: s.executeBody },
    responses: {
      200: {
        description: 'The run succeeded (or the response block chose another status)',
        body: s.syncResult,
      },
      202: { description: 'Queued (header X-Execution-Mode: async)', body: s.asyncResult },
      408: { description: 'The run could not finish within the sync budget (code TIMEOUT)' },
      500: { description: 'The run failed (code EXECUTION_ERROR)', body: s.syncResult },
    },
    access: runAccess,
    rateLimit: 'execution',
    // Streamed runs answer as they go, for up to 15 minutes; sync runs still end at the sync budget.
    timeoutInSeconds: 900,
    memoryInMb: 1024,
    runsBlocks: true,
    streaming: true,
    streamRunEntry: 'functions/workflows/stream-run.ts',
  },
  {
    id: 'runWorkflow',
    method: 'POST',
    path: '/api/workflows/{workflowId}/run',
    entry: 'functions/workflows/run.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Run the workflow by hand (trigger manual); draft runs the saved, undeployed graph',
    tag: 'execution',
    request: { params: s.workflowIdParams, body: s.runWorkflowBody },
    responses: {
      200: { description: 'The run succeeded', body: s.syncResult },
      500: { description: 'The run failed (code EXECUTION_ERROR)', body: s.syncResult },
    },
    // A run's input files given by URL are fetched through the outbound guard.
    makesOutboundRequests: true,
    access: {
      // executions: a large input waits there for the run (core/runs/by-reference.ts).
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      stateMachines: { executionSync: 'startSync' },
    },
    rateLimit: 'manual',
    timeoutInSeconds: 29,
  },
] as const satisfies readonly RouteDefinition[];
