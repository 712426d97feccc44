/**
 * The route table: one entry per HTTP endpoint, each served by its own Lambda in AWS and by the
 * same handler module in the local server. OpenAPI is generated from it.
 */
import { z } from 'zod';
import type { QueueName, ResourceAccess, StateMachineName } from './resources';
import * as files from './file-schemas';
import * as forms from './form-schemas';
import * as notifications from './notification-schemas';
import * as logs from './log-schemas';
import { organizationRoutes } from './organization-routes';
import { permissionGroupRoutes } from './permission-group-routes';
import * as s from './schemas';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type RouteAuth = 'none' | 'apiKey' | 'admin';

/**
 * Who may call a route, declared on every route (the field is required, so a new route cannot leave
 * it out; test/integration/api/route-permissions.test.ts calls every workspace-scoped route as a
 * non-member and as each permission level and holds the handlers to what is declared here):
 * - `public`: anyone (`auth: 'none'`; forms and webhook calls check their own secrets).
 * - `adminKey`: the operator, with the admin key (`auth: 'admin'`).
 * - `self`: any user with an API key, acting on their own things (keys, usage, their workspaces).
 * - `read` | `write` | `admin`: the least workspace permission on the workspace the request names
 *   (a `workspaceId` in the path, query or body) or reaches through a resource (a workflow, form,
 *   job or log entry). A non-member gets 404, a member with too little permission 403.
 * - `organizationMember` | `organizationAdmin`: the least organization role on the organization in
 *   the path (`admin` is met by `admin` and `owner`); a non-member gets 404.
 */
export type RoutePermission =
  | 'public'
  | 'adminKey'
  | 'self'
  | 'read'
  | 'write'
  | 'admin'
  | 'organizationMember'
  | 'organizationAdmin';

/** The workspace permissions among the route permissions. */
export const workspaceRoutePermissions = ['read', 'write', 'admin'] as const;

export interface RouteDefinition {
  /** Unique id; also the Lambda's construct id and the OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** API Gateway style path, parameters in braces. */
  path: string;
  /** Module (relative to the repo root) whose `handler` export serves the route. */
  entry: string;
  auth: RouteAuth;
  /** Who may call it; see RoutePermission. */
  permission: RoutePermission;
  summary: string;
  tag: string;
  request?: { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType };
  /** Documented answers; errors always use the Error schema. */
  responses: Record<number, { description: string; body?: z.ZodType }>;
  access: ResourceAccess;
  timeoutInSeconds?: number;
  memoryInMb?: number;
  /** The handler runs blocks itself (streamed runs), so the File block's parsers are installed beside it (lib/bundling.ts). */
  runsBlocks?: boolean;
  /**
   * The handler answers through a response stream (SSE): API Gateway's REST response streaming to
   * a streaming Lambda in AWS, chunked transfer locally. See functions/http/streaming-route.ts.
   */
  streaming?: boolean;
  /**
   * The bucket a request draws a token from. Key-authenticated routes draw from `api` unless they
   * say otherwise: `execution` draws from `sync` or `async` by the request's mode, `manual` draws
   * nothing (runs by hand are not limited; the `sync` bucket is shown), `handler` means the handler
   * draws from its owner's buckets itself (webhook calls). See functions/http/limits.ts.
   */
  rateLimit?: 'execution' | 'manual' | 'handler';
}

/** Whether a route's requests draw tokens (and so answer with a bucket's X-RateLimit-* headers). */
export function drawsTokens(route: RouteDefinition): boolean {
  return route.auth === 'apiKey' || route.rateLimit !== undefined;
}

/**
 * Whether a route also takes an identity provider's ID token (`Authorization: Bearer`) when single
 * sign-on is on: the management and log routes, which a person uses. Runs (execute, and the manual
 * run that spends like one) keep requiring an API key, as do the routes that take no key at all.
 */
export function acceptsIdToken(route: RouteDefinition): boolean {
  return route.auth === 'apiKey' && route.rateLimit === undefined;
}

/**
 * What a route's function may touch: its own access, plus the limits table for every route that
 * can refuse an authentication (failures are counted per source address), and the limits kept on
 * user and organization items for every route that draws a token.
 */
export function routeAccess(route: RouteDefinition): ResourceAccess {
  if (route.auth === 'none' && !drawsTokens(route)) return route.access;
  const withLimits: ResourceAccess = {
    ...route.access,
    tables: { ...route.access.tables, limits: 'readWrite' },
  };
  return drawsTokens(route) ? { ...withLimits, ownerLimits: 'update' } : withLimits;
}

const entities = { tables: { entities: 'read' } } as const satisfies ResourceAccess;
const entitiesWrite = { tables: { entities: 'readWrite' } } as const satisfies ResourceAccess;
/** What starting a run takes in every mode: sync (Express machine), async (job + queue), stream (engine in process). */
const runAccess = {
  tables: { entities: 'read', executions: 'readWrite' },
  buckets: { files: 'readWrite' },
  // Jobs for async runs; the completion event of a streamed run, finalized here.
  queues: { jobs: 'send', notifications: 'send' },
  stateMachines: { executionSync: 'startSync' },
  keys: { environment: 'decrypt' },
  models: 'invoke',
} as const satisfies ResourceAccess;

/** Subscription writes: webhook secrets are encrypted with the environment's key. */
const notificationWrite = {
  tables: { entities: 'readWrite' },
  keys: { environment: 'encrypt' },
} as const satisfies ResourceAccess;

/** Log reads: entries and their large parts, workflows (names, folders, deployments), the cursor secret. */
const logAccess = {
  tables: { entities: 'read', executions: 'read' },
  buckets: { files: 'read' },
  secrets: { logCursor: 'read' },
} as const satisfies ResourceAccess;

export const routes = [
  {
    id: 'getHealth',
    method: 'GET',
    path: '/api/health',
    entry: 'functions/health/get.ts',
    auth: 'none',
    permission: 'public',
    summary: 'Service health',
    tag: 'service',
    responses: { 200: { description: 'The service answers' } },
    access: {},
  },
  {
    id: 'getOpenApi',
    method: 'GET',
    path: '/api/openapi.json',
    entry: 'functions/openapi/get.ts',
    auth: 'none',
    permission: 'public',
    summary: 'This API as an OpenAPI 3.1 document',
    tag: 'service',
    responses: { 200: { description: 'OpenAPI document' } },
    access: {},
  },
  // Admin API (x-admin-key)
  {
    id: 'adminCreateUser',
    method: 'POST',
    path: '/api/v1/admin/users',
    entry: 'functions/admin/create-user.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Create a user',
    tag: 'admin',
    request: { body: s.createUserBody },
    responses: { 201: { description: 'Created', body: s.data(s.user) } },
    access: entitiesWrite,
  },
  {
    id: 'adminUpdateUser',
    method: 'PATCH',
    path: '/api/v1/admin/users/{userId}',
    entry: 'functions/admin/update-user.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary:
      "Change a user's plan or usage limit (USD a month; null returns to the plan's); applies from the next request",
    tag: 'admin',
    request: { params: s.userIdParams, body: s.updateLimitsBody },
    responses: { 200: { description: 'The user as changed', body: s.data(s.user) } },
    access: entitiesWrite,
  },
  {
    id: 'adminCreateApiKey',
    method: 'POST',
    path: '/api/v1/admin/users/{userId}/api-keys',
    entry: 'functions/admin/create-api-key.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Create an API key for a user; the key is shown once',
    tag: 'admin',
    request: { params: s.userIdParams, body: s.createApiKeyBody },
    responses: { 201: { description: 'Created', body: s.data(s.createdApiKey) } },
    access: entitiesWrite,
  },
  {
    id: 'adminCreateWorkspace',
    method: 'POST',
    path: '/api/v1/admin/workspaces',
    entry: 'functions/admin/create-workspace.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Create a workspace owned by a user',
    tag: 'admin',
    request: { body: s.createWorkspaceAdminBody },
    responses: { 201: { description: 'Created', body: s.data(s.workspace) } },
    access: entitiesWrite,
  },
  {
    id: 'adminImportWorkflow',
    method: 'POST',
    path: '/api/v1/admin/workflows/import',
    entry: 'functions/admin/import-workflow.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Import a workflow graph into a workspace, optionally deploying it',
    tag: 'admin',
    request: { body: s.importWorkflowBody },
    responses: { 201: { description: 'Created', body: s.data(s.workflow) } },
    access: entitiesWrite,
  },
  {
    id: 'adminCreateOrganization',
    method: 'POST',
    path: '/api/v1/admin/organizations',
    entry: 'functions/admin/create-organization.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Create an organization',
    tag: 'admin',
    request: { body: s.createOrganizationBody },
    responses: { 201: { description: 'Created', body: s.data(s.organization) } },
    access: entitiesWrite,
  },
  {
    id: 'adminUpdateOrganization',
    method: 'PATCH',
    path: '/api/v1/admin/organizations/{orgId}',
    entry: 'functions/admin/update-organization.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: "Change an organization's plan or usage limit; it applies to members whose own plan ranks lower",
    tag: 'admin',
    request: { params: s.organizationIdParams, body: s.updateLimitsBody },
    responses: { 200: { description: 'The organization as changed', body: s.data(s.organization) } },
    access: entitiesWrite,
  },
  {
    id: 'adminAddOrganizationMember',
    method: 'POST',
    path: '/api/v1/admin/organizations/{orgId}/members',
    entry: 'functions/admin/add-organization-member.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Add a member to an organization, or change their role',
    tag: 'admin',
    request: { params: s.organizationIdParams, body: s.addOrganizationMemberBody },
    responses: { 200: { description: 'Member added', body: s.data(s.organizationMember) } },
    access: entitiesWrite,
  },
  {
    id: 'adminAddWorkspaceMember',
    method: 'POST',
    path: '/api/v1/admin/workspaces/{workspaceId}/members',
    entry: 'functions/admin/add-workspace-member.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Add a member to a workspace, or change their permissions',
    tag: 'admin',
    request: { params: s.workspaceIdParams, body: s.addWorkspaceMemberBody },
    responses: { 200: { description: 'Member added', body: s.data(s.workspaceMember) } },
    access: entitiesWrite,
  },
  {
    id: 'adminRemoveWorkspaceMember',
    method: 'DELETE',
    path: '/api/v1/admin/workspaces/{workspaceId}/members',
    entry: 'functions/admin/remove-workspace-member.ts',
    auth: 'admin',
    permission: 'adminKey',
    summary: 'Remove a member from a workspace',
    tag: 'admin',
    request: { params: s.workspaceIdParams, query: s.removeWorkspaceMemberQuery },
    responses: { 200: { description: 'Member removed', body: s.data(s.workspaceMember) } },
    access: entitiesWrite,
  },
  // Management API (x-api-key)
  {
    id: 'getUsageLimits',
    method: 'GET',
    path: '/api/users/me/usage-limits',
    entry: 'functions/usage/get.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: "The caller's execution rate limits and this month's usage against the usage limit",
    tag: 'usage',
    responses: { 200: { description: 'Usage limits (no data wrapper)', body: s.usageLimits } },
    access: entities,
  },
  {
    id: 'listApiKeys',
    method: 'GET',
    path: '/api/users/me/api-keys',
    entry: 'functions/api-keys/list.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: "The caller's API keys (never the keys themselves)",
    tag: 'api-keys',
    responses: { 200: { description: 'Keys', body: s.data(s.apiKey.array()) } },
    access: entities,
  },
  {
    id: 'createApiKey',
    method: 'POST',
    path: '/api/users/me/api-keys',
    entry: 'functions/api-keys/create.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Create an API key for the caller; the key is shown once',
    tag: 'api-keys',
    request: { body: s.createApiKeyBody },
    responses: { 201: { description: 'Created', body: s.data(s.createdApiKey) } },
    access: entitiesWrite,
  },
  {
    id: 'deleteApiKey',
    method: 'DELETE',
    path: '/api/users/me/api-keys/{keyId}',
    entry: 'functions/api-keys/delete.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: "Revoke one of the caller's API keys",
    tag: 'api-keys',
    request: { params: s.keyIdParams },
    responses: { 200: { description: 'Revoked', body: s.data(s.apiKey) } },
    access: entitiesWrite,
  },
  {
    id: 'listWorkspaces',
    method: 'GET',
    path: '/api/workspaces',
    entry: 'functions/workspaces/list.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Workspaces the caller is a member of, with their permissions',
    tag: 'workspaces',
    responses: { 200: { description: 'Workspaces', body: s.data(s.workspace.array()) } },
    access: entities,
  },
  {
    id: 'createWorkspace',
    method: 'POST',
    path: '/api/workspaces',
    entry: 'functions/workspaces/create.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Create a workspace; the caller becomes its owner with admin permissions',
    tag: 'workspaces',
    request: { body: s.createWorkspaceBody },
    responses: { 201: { description: 'Created', body: s.data(s.workspace) } },
    access: entitiesWrite,
  },
  {
    id: 'getWorkspace',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}',
    entry: 'functions/workspaces/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One workspace',
    tag: 'workspaces',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Workspace', body: s.data(s.workspace) } },
    access: entities,
  },
  {
    id: 'listEnvironmentVariables',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/environment',
    entry: 'functions/environment/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Environment variables of a workspace; values in clear only for members with write or admin',
    tag: 'environment',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Variables, by name', body: s.data(s.environmentVariable.array()) } },
    access: { tables: { entities: 'read' }, keys: { environment: 'decrypt' } },
  },
  {
    id: 'putEnvironmentVariable',
    method: 'PUT',
    path: '/api/workspaces/{workspaceId}/environment/{name}',
    entry: 'functions/environment/put.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Create or replace an environment variable (stored encrypted)',
    tag: 'environment',
    request: { params: s.environmentVariableParams, body: s.putEnvironmentVariableBody },
    responses: {
      200: { description: 'Replaced', body: s.data(s.environmentVariable) },
      201: { description: 'Created', body: s.data(s.environmentVariable) },
    },
    access: { tables: { entities: 'readWrite' }, keys: { environment: 'encrypt' } },
  },
  {
    id: 'deleteEnvironmentVariable',
    method: 'DELETE',
    path: '/api/workspaces/{workspaceId}/environment/{name}',
    entry: 'functions/environment/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Delete an environment variable',
    tag: 'environment',
    request: { params: s.environmentVariableParams },
    responses: { 200: { description: 'Deleted', body: s.data(s.environmentVariable) } },
    access: entitiesWrite,
  },
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
    responses: { 200: { description: 'Workflows', body: s.data(s.workflowSummary.array()) } },
    access: entities,
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
    access: entitiesWrite,
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
    access: entities,
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
    access: entitiesWrite,
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
    access: { ...entitiesWrite, schedules: 'manage' },
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
    access: { ...entitiesWrite, schedules: 'manage' },
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
    access: { ...entitiesWrite, schedules: 'manage' },
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
    access: entities,
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
    access: {
      tables: { entities: 'read' },
      buckets: { files: 'readWrite' },
      stateMachines: { executionSync: 'startSync' },
    },
    rateLimit: 'manual',
    timeoutInSeconds: 29,
  },
  // Jobs (asynchronous runs)
  {
    id: 'getJob',
    method: 'GET',
    path: '/api/jobs/{taskId}',
    entry: 'functions/jobs/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Status of an asynchronous run',
    tag: 'execution',
    request: { params: s.taskIdParams },
    responses: { 200: { description: 'Job status', body: s.jobStatus } },
    access: { tables: { entities: 'read', executions: 'read' }, buckets: { files: 'read' } },
  },
  {
    id: 'cancelJob',
    method: 'POST',
    path: '/api/jobs/{taskId}/cancel',
    entry: 'functions/jobs/cancel.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Cancel a queued or processing run',
    tag: 'execution',
    request: { params: s.taskIdParams },
    responses: {
      200: { description: 'Cancelled', body: s.jobStatus },
      409: { description: 'The job has finished already' },
    },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      stateMachines: { executionAsync: 'stop' },
    },
  },
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
    method: 'GET',
    path: '/api/v1/logs/executions/{executionId}',
    entry: 'functions/logs/execution.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'The graph a run executed (its deployment, or the draft it ran) and its metadata',
    tag: 'logs',
    request: { params: logs.executionIdParams },
    responses: { 200: { description: 'Execution detail (no data wrapper)', body: logs.executionDetail } },
    access: logAccess,
  },
  {
    id: 'getLog',
    method: 'GET',
    path: '/api/v1/logs/{id}',
    entry: 'functions/logs/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One log entry with its trace spans, final output and full cost',
    tag: 'logs',
    request: { params: logs.logIdParams },
    responses: { 200: { description: 'Log entry detail', body: s.data(logs.logDetail) } },
    access: logAccess,
  },
  // Files
  {
    id: 'createUploadUrl',
    method: 'POST',
    path: '/api/files/upload-url',
    entry: 'functions/files/upload-url.ts',
    auth: 'apiKey',
    permission: 'write',
    summary:
      'A presigned URL to upload a file too large for a request body; pass the answered file as {name, url, type}',
    tag: 'files',
    request: { body: files.uploadUrlBody },
    responses: { 200: { description: 'Upload URL and file', body: s.data(files.uploadUrl) } },
    access: { tables: { entities: 'read' }, buckets: { files: 'readWrite' } },
  },
  // Notifications
  {
    id: 'createNotification',
    method: 'POST',
    path: '/api/workspaces/{workspaceId}/notifications',
    entry: 'functions/notifications/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Subscribe a webhook to the completions of runs in the workspace (write permission)',
    tag: 'notifications',
    request: { params: s.workspaceIdParams, body: notifications.notificationBody },
    responses: { 201: { description: 'Created', body: s.data(notifications.notification) } },
    access: notificationWrite,
  },
  {
    id: 'listNotifications',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications',
    entry: 'functions/notifications/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workspace's notification subscriptions",
    tag: 'notifications',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Subscriptions', body: s.data(z.array(notifications.notification)) } },
    access: entities,
  },
  {
    id: 'getNotification',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One notification subscription',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 200: { description: 'Subscription', body: s.data(notifications.notification) } },
    access: entities,
  },
  {
    id: 'updateNotification',
    method: 'PUT',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/update.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Replace a subscription (a webhook secret left out is kept for the same URL)',
    tag: 'notifications',
    request: { params: notifications.notificationParams, body: notifications.notificationBody },
    responses: { 200: { description: 'Subscription', body: s.data(notifications.notification) } },
    access: notificationWrite,
  },
  {
    id: 'deleteNotification',
    method: 'DELETE',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a subscription; deliveries under way end as failed',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: {
      200: { description: 'Deleted', body: s.data(z.object({ id: z.string(), deleted: z.literal(true) })) },
    },
    access: entitiesWrite,
  },
  {
    id: 'testNotification',
    method: 'POST',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}/test',
    entry: 'functions/notifications/test.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Send a sample event to the subscription now',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 202: { description: 'Queued delivery', body: s.data(notifications.delivery) } },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { notifications: 'send' },
    },
  },
  {
    id: 'listNotificationDeliveries',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}/deliveries',
    entry: 'functions/notifications/deliveries.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'The last 100 deliveries of a subscription, newest first, with every attempt',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 200: { description: 'Deliveries', body: s.data(z.array(notifications.delivery)) } },
    access: { tables: { entities: 'read', executions: 'read' }, buckets: { files: 'read' } },
  },
  // Webhook triggers
  {
    id: 'createWebhook',
    method: 'POST',
    path: '/api/workflows/{workflowId}/webhooks',
    entry: 'functions/webhooks/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Create a webhook trigger: a path that starts the workflow when called',
    tag: 'triggers',
    request: { params: s.workflowIdParams, body: s.createWebhookBody },
    responses: { 201: { description: 'Created', body: s.data(s.webhook) } },
    access: { tables: { entities: 'readWrite' }, keys: { environment: 'encrypt' } },
  },
  {
    id: 'listWebhooks',
    method: 'GET',
    path: '/api/workflows/{workflowId}/webhooks',
    entry: 'functions/webhooks/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workflow's webhook triggers",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Webhooks', body: s.data(z.array(s.webhook)) } },
    access: entities,
  },
  {
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/api/workflows/{workflowId}/webhooks/{webhookId}',
    entry: 'functions/webhooks/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a webhook trigger',
    tag: 'triggers',
    request: { params: s.webhookParams },
    responses: { 200: { description: 'Removed' } },
    access: entitiesWrite,
  },
  {
    id: 'triggerWebhook',
    method: 'POST',
    path: '/api/webhooks/trigger/{path}',
    entry: 'functions/webhooks/trigger.ts',
    auth: 'none',
    permission: 'public',
    summary: 'Start the workflow of a webhook trigger (signed or bearer when it has a secret)',
    tag: 'triggers',
    request: { params: s.webhookTriggerParams },
    responses: { 202: { description: 'Queued', body: s.asyncResult } },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { jobs: 'send' },
      keys: { environment: 'decrypt' },
    },
    // The call draws from the async bucket of the webhook's owner.
    rateLimit: 'handler',
  },
  // Forms
  {
    id: 'createForm',
    method: 'POST',
    path: '/api/forms',
    entry: 'functions/forms/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Offer a workflow as a public form page (deploys the workflow when it is not deployed)',
    tag: 'forms',
    request: { body: forms.createFormBody },
    responses: { 201: { description: 'Created', body: s.data(forms.formView) } },
    // Creating a form may deploy its workflow, which applies the workflow's schedule.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'readWrite' }, schedules: 'manage' },
  },
  {
    id: 'listForms',
    method: 'GET',
    path: '/api/forms',
    entry: 'functions/forms/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "A workspace's forms",
    tag: 'forms',
    request: { query: forms.listFormsQuery },
    responses: { 200: { description: 'Forms, oldest first', body: s.data(z.array(forms.formView)) } },
    access: entities,
  },
  {
    id: 'getForm',
    method: 'GET',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'A form (its password only as hasPassword)',
    tag: 'forms',
    request: { params: forms.formIdParams },
    responses: { 200: { description: 'The form', body: s.data(forms.formView) } },
    access: entities,
  },
  {
    id: 'updateForm',
    method: 'PUT',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/update.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Change a form; the members given replace its own',
    tag: 'forms',
    request: { params: forms.formIdParams, body: forms.updateFormBody },
    responses: { 200: { description: 'The form as changed', body: s.data(forms.formView) } },
    // Files: a workflow whose graph is large is kept in the bucket (field overrides are checked against it).
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' } },
  },
  {
    id: 'deleteForm',
    method: 'DELETE',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a form; its identifier is free again',
    tag: 'forms',
    request: { params: forms.formIdParams },
    responses: { 200: { description: 'Deleted' } },
    access: entitiesWrite,
  },
  {
    id: 'getFormConfig',
    method: 'GET',
    path: '/api/form/{identifier}',
    entry: 'functions/forms/config.ts',
    auth: 'none',
    permission: 'public',
    summary: "A form page's settings and fields (never its password or address list)",
    tag: 'forms',
    request: { params: forms.formIdentifierParams },
    responses: { 200: { description: 'The page config', body: s.data(forms.publicFormConfig) } },
    // Files: a deployment whose graph is large is kept in the bucket.
    access: { tables: { entities: 'read' }, buckets: { files: 'read' } },
  },
  {
    id: 'submitForm',
    method: 'POST',
    path: '/api/form/{identifier}',
    entry: 'functions/forms/submit.ts',
    auth: 'none',
    permission: 'public',
    summary: "Submit a form: starts its workflow asynchronously (trigger form) as the form's creator",
    tag: 'forms',
    request: { params: forms.formIdentifierParams, body: forms.formSubmissionBody },
    responses: { 200: { description: 'Accepted; the run is queued', body: forms.formSubmissionResult } },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { jobs: 'send' },
      keys: { environment: 'decrypt' },
    },
    // Per form and per source address, then the creator's async bucket (functions/http/limits.ts).
    rateLimit: 'handler',
  },
  // Schedules
  {
    id: 'putSchedule',
    method: 'PUT',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/put.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Run the workflow on a schedule (5-field cron or every N minutes, in a time zone)',
    tag: 'triggers',
    request: { params: s.workflowIdParams, body: s.putScheduleBody },
    responses: { 200: { description: 'The schedule', body: s.data(s.schedule) } },
    // Files: a workflow whose graph is large is kept in the bucket.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' }, schedules: 'manage' },
  },
  {
    id: 'getSchedule',
    method: 'GET',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workflow's schedule",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'The schedule', body: s.data(s.schedule) } },
    access: { tables: { entities: 'read' }, buckets: { files: 'read' } },
  },
  {
    id: 'deleteSchedule',
    method: 'DELETE',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: "Remove the workflow's schedule",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Removed' } },
    // Files: a workflow whose graph is large is kept in the bucket.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' }, schedules: 'manage' },
  },
  ...organizationRoutes,
  ...permissionGroupRoutes,
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];

/**
 * What starts a worker: the execution state machine's Task states, or a queue (as an SQS event
 * source with partial batch failures in AWS, a poller locally). `deadLetter` consumes the queue's
 * dead-letter queue instead. CDK and the local service both wire consumers from this.
 */
export type WorkerTrigger =
  | { kind: 'stateMachineTask' }
  | { kind: 'queue'; queue: QueueName; deadLetter?: boolean; batchSize: number }
  /** An execution of the machine ended FAILED, TIMED_OUT or ABORTED (an EventBridge rule in AWS). */
  | { kind: 'executionEnded'; stateMachine: StateMachineName }
  /** On a clock (an EventBridge schedule in AWS, a timer locally). */
  | { kind: 'every'; minutes: number };

/** Workers: functions that are not HTTP routes. */
export interface WorkerDefinition {
  id: string;
  entry: string;
  summary: string;
  access: ResourceAccess;
  timeoutInSeconds: number;
  memoryInMb: number;
  /** Runs blocks, so the File block's parsers are installed beside it (lib/bundling.ts). */
  runsBlocks?: boolean;
  trigger: WorkerTrigger;
}

export const workers = {
  executionStep: {
    id: 'executionStep',
    entry: 'functions/execution/step.ts',
    summary: 'Runs ready blocks of a workflow run until done, waiting, or out of time budget',
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      // Decrypts the workspace environment for `{{NAME}}` references.
      keys: { environment: 'decrypt' },
      // Agent and router blocks with provider `bedrock`.
      models: 'invoke',
    },
    timeoutInSeconds: 300,
    memoryInMb: 1024,
    runsBlocks: true,
    trigger: { kind: 'stateMachineTask' },
  },
  executionFinalize: {
    id: 'executionFinalize',
    entry: 'functions/execution/finalize.ts',
    summary: 'Writes the log entry of a finished run, settles its job and shapes its result',
    // Limits: the run's cost is added to its owner's usage (marks in the limits table).
    access: {
      tables: { entities: 'read', executions: 'readWrite', limits: 'readWrite' },
      buckets: { files: 'readWrite' },
      ownerLimits: 'update',
      // The completion event of every run.
      queues: { notifications: 'send' },
    },
    timeoutInSeconds: 60,
    memoryInMb: 512,
    trigger: { kind: 'stateMachineTask' },
  },
  jobsStart: {
    id: 'jobsStart',
    entry: 'functions/jobs/start.ts',
    summary: 'Starts queued asynchronous runs and schedule fires on the Standard state machine',
    access: {
      // A schedule fire past its owner's usage limit (read from the owner's item) starts no run.
      tables: { entities: 'readWrite', executions: 'readWrite', limits: 'read' },
      buckets: { files: 'readWrite' },
      stateMachines: { executionAsync: 'start' },
    },
    timeoutInSeconds: 60,
    memoryInMb: 512,
    trigger: { kind: 'queue', queue: 'jobs', batchSize: 10 },
  },
  notificationsWorker: {
    id: 'notificationsWorker',
    entry: 'functions/notifications/worker.ts',
    summary: 'Dispatches completion events to matching subscriptions and makes webhook delivery attempts',
    access: {
      // Limits: the rate limits and usage that includeRateLimits and includeUsageData add.
      tables: { entities: 'read', executions: 'readWrite', limits: 'read' },
      buckets: { files: 'readWrite' },
      // Consumes events and deliveries, queues the deliveries of an event, delays retries.
      queues: { notifications: 'sendAndConsume' },
      // Decrypts webhook secrets (to sign) and chat tokens.
      keys: { environment: 'decrypt' },
      // Notification e-mail.
      email: 'send',
    },
    // 10 attempts at the 30 s delivery time-out, with room to spare.
    timeoutInSeconds: 60,
    memoryInMb: 512,
    trigger: { kind: 'queue', queue: 'notifications', batchSize: 10 },
  },
  notificationsInactivity: {
    id: 'notificationsInactivity',
    entry: 'functions/notifications/inactivity.ts',
    summary: 'Checks the no-activity alert rules: alerts for workflows that have not run for their hours',
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      queues: { notifications: 'send' },
    },
    timeoutInSeconds: 120,
    memoryInMb: 256,
    trigger: { kind: 'every', minutes: 15 },
  },
  jobsDeadLetter: {
    id: 'jobsDeadLetter',
    entry: 'functions/jobs/dead-letter.ts',
    summary: 'Marks the job of a message that could not be started as failed, with the reason',
    access: { tables: { executions: 'readWrite' } },
    timeoutInSeconds: 30,
    memoryInMb: 256,
    trigger: { kind: 'queue', queue: 'jobs', deadLetter: true, batchSize: 10 },
  },
  jobsRunEnded: {
    id: 'jobsRunEnded',
    entry: 'functions/jobs/run-ended.ts',
    summary: 'Fails the job of an asynchronous run that ended outside its Finalize (failed, timed out)',
    access: { tables: { executions: 'readWrite' } },
    timeoutInSeconds: 30,
    memoryInMb: 256,
    trigger: { kind: 'executionEnded', stateMachine: 'executionAsync' },
  },
} as const satisfies Record<string, WorkerDefinition>;

export function findRoute(id: RouteId): RouteDefinition {
  const route = routes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route ${id}`);
  return route;
}
