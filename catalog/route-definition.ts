/**
 * What a route of the route table (catalog/routes.ts) is, and what follows from it, without any
 * route: a handler's bundle imports this and its own area's routes (catalog/<area>-routes.ts), never
 * the whole table with every route's schemas.
 */
import type { ResourceAccess } from './resources';
import type * as z from './zod';

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
  request?: { params?: z.ZodMiniType; query?: z.ZodMiniType; body?: z.ZodMiniType };
  /**
   * Media types the handler reads from the event itself (a binary body arrives base64-encoded) in
   * place of the JSON body; API Gateway passes them as binary (`binaryMediaTypes`, lib/api-stack.ts).
   */
  rawBodyMediaTypes?: readonly string[];
  /** Documented answers; errors always use the Error schema. */
  responses: Record<number, { description: string; body?: z.ZodMiniType }>;
  access: ResourceAccess;
  timeoutInSeconds?: number;
  memoryInMb?: number;
  /**
   * The handler runs blocks itself (streamed runs), so what blocks load on demand (the File block's
   * parsers, the model providers' SDKs, the sandbox) is installed beside it (lib/bundling.ts).
   */
  runsBlocks?: boolean;
  /**
   * The handler shows schedules' fire times without managing schedules (`schedules: 'manage'`),
   * so the cron evaluator it loads on demand is installed beside it (lib/bundling.ts).
   */
  readsSchedules?: boolean;
  /**
   * The handler makes outbound HTTP requests through the guard (a run's input files given by URL),
   * or checks URLs as the guard would (a notification's webhook), so what the guard's allowlist
   * loads on demand is installed beside it (lib/bundling.ts). Implied by `runsBlocks`.
   */
  makesOutboundRequests?: boolean;
  /**
   * The handler answers through a response stream (SSE): API Gateway's REST response streaming to
   * a streaming Lambda in AWS, chunked transfer locally. See functions/http/streaming-route.ts.
   */
  streaming?: boolean;
  /**
   * Module (relative to the repo root) built as a second bundle, `streamRunFile`, beside the
   * handler's and loaded by the handler on its first streamed run only: what that run needs (the
   * engine, the blocks) then weighs on no other request's cold start (lib/bundling.ts).
   */
  streamRunEntry?: string;
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

/** The route of `routes` (an area's routes, catalog/<area>-routes.ts) whose id is `Id`. */
export type RouteIn<Routes extends readonly RouteDefinition[], Id extends Routes[number]['id']> = Extract<
  Routes[number],
  { id: Id }
>;

/** Route `id` of an area's routes: a handler looks its route up there, never in the whole table. */
export function routeIn<Routes extends readonly RouteDefinition[], Id extends Routes[number]['id']>(
  routes: Routes,
  id: Id,
): RouteIn<Routes, Id> {
  const route = routes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route ${id}`);
  return route as RouteIn<Routes, Id>;
}

/** Reads and writes of the entities table, the access most routes need. */
export const entities = { tables: { entities: 'read' } } as const satisfies ResourceAccess;
export const entitiesWrite = { tables: { entities: 'readWrite' } } as const satisfies ResourceAccess;
/**
 * What a route that reads a workflow needs besides: its graph may be kept in the files bucket behind a
 * pointer (adapters/dynamodb/workflow-store.ts).
 */
export const workflowGraphs = { buckets: { files: 'read' } } as const satisfies ResourceAccess;

/**
 * The file a route with a `streamRunEntry` finds beside its index.js: that module's own bundle,
 * loaded by the requests that need it only.
 */
export const streamRunFile = 'stream-run.js';
