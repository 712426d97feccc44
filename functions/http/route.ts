/**
 * Turns a route of the route table into a Lambda handler: authenticate, draw the request's token,
 * parse and validate with the route's zod schemas, call the route's function, answer JSON, map
 * errors; every answer carries the X-RateLimit-* headers of the bucket the request drew from.
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/routes';
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RouteDefinition, RouteIn } from '../../catalog/route-definition';
import { routeIn } from '../../catalog/route-definition';
import * as z from '../../catalog/zod';
import { ValidationError } from '../../core/errors';
import type { Principal } from '../../core/identity/service';
import { type Authorizer, authorize } from './authorize';
import { countFailedAuthentication, RequestLimits, refuseBlockedSource } from './limits';
import { logInvocation, loggerOf, logger as rootLogger } from './logger';
import { parseJsonBody, requireJsonContentType } from './json-body';
import { errorResponse, type JsonResponse, toProxyResult } from './responses';

type Part<R, K extends string> = R extends { request: infer Q }
  ? K extends keyof Q
    ? Q[K] extends z.ZodMiniType
      ? z.output<Q[K]>
      : undefined
    : undefined
  : undefined;

export interface RouteInput<R> {
  params: Part<R, 'params'>;
  query: Part<R, 'query'>;
  body: Part<R, 'body'>;
  principal: R extends { auth: 'apiKey' } ? Principal : undefined;
  headers: Record<string, string>;
  /** Who may call the route, as the route table declares it: handlers check this level, not their own. */
  permission: R extends { permission: infer P } ? P : never;
  event: APIGatewayProxyEvent;
  /** The bucket the request drew from and whose limits apply (its owner); a handler may draw itself. */
  limits: RequestLimits;
  /** This invocation's logger: the keys a handler appends (the execution id) go on its lines only. */
  logger: Logger;
}

/**
 * The handler of route `id`, looked up in its area's routes: a handler imports those and never the
 * whole route table, so its bundle carries no other area's schemas.
 */
export function httpRoute<Routes extends readonly RouteDefinition[], Id extends Routes[number]['id']>(
  routes: Routes,
  id: Id,
  fn: (input: RouteInput<RouteIn<Routes, Id>>) => Promise<JsonResponse>,
) {
  return routeHandler(routeIn(routes, id), fn, authorize);
}

/**
 * `httpRoute` for a route that takes no credentials (`auth: 'none'`): its bundle carries none of
 * the authentication (API keys, ID tokens, the admin key). Anything else is refused at start.
 */
export function publicRoute<
  Routes extends readonly RouteDefinition[],
  Id extends Extract<Routes[number], { auth: 'none' }>['id'],
>(routes: Routes, id: Id, fn: (input: RouteInput<RouteIn<Routes, Id>>) => Promise<JsonResponse>) {
  const route = routeIn(routes, id);
  if (route.auth !== 'none') throw new Error(`Route ${id} takes credentials: serve it with httpRoute`);
  return routeHandler(route, fn, async () => undefined);
}

function routeHandler<R>(
  route: RouteDefinition,
  fn: (input: RouteInput<R>) => Promise<JsonResponse>,
  authorizer: Authorizer,
) {
  const handle = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const limits = new RequestLimits();
    const logger = loggerOf(context);
    try {
      const response = await fn(await routeInputOf<R>(route, event, limits, authorizer, logger));
      return toProxyResult(withLimitHeaders(response, limits));
    } catch (error) {
      return toProxyResult(withLimitHeaders(await failureResponse(error, event, limits, logger), limits));
    }
  };
  return middy(handle).use(logInvocation());
}

/** The error answer; a failed authentication counts against its source address (maybe a 429). */
export async function failureResponse(
  error: unknown,
  event: APIGatewayProxyEvent,
  limits: RequestLimits,
  logger: Logger,
): Promise<JsonResponse> {
  try {
    await limits.refundUnlessStarted();
    return errorResponse(await countFailedAuthentication(error, event, limits), logger);
  } catch (countingError) {
    return errorResponse(countingError, logger);
  }
}

export function withLimitHeaders(response: JsonResponse, limits: RequestLimits): JsonResponse {
  const headers = limits.headers();
  return Object.keys(headers).length
    ? { ...response, headers: { ...response.headers, ...headers } }
    : response;
}

/**
 * Authenticates the request, draws its token, and parses its parameters and body with the route's
 * schemas: a request refused for its rate is not parsed, and one refused as malformed has paid.
 */
export async function routeInputOf<R>(
  route: RouteDefinition,
  event: APIGatewayProxyEvent,
  limits: RequestLimits,
  authorizer: Authorizer,
  logger: Logger,
): Promise<RouteInput<R>> {
  refuseBlockedSource(event, limits);
  const headers = lowercaseHeaders(event.headers);
  // A path that cannot be decoded is malformed whoever sends it, so it is refused before auth.
  const pathParameters = decodePathParameters(event.pathParameters);
  const principal = await authorizer(route, headers, limits, logger);
  return {
    params: validate(route.request?.params, pathParameters, 'path parameter', logger),
    query: validate(route.request?.query, event.queryStringParameters ?? {}, 'query parameter', logger),
    body:
      route.request?.body && !isRawBody(route, headers)
        ? validate(route.request.body, jsonBodyOf(event, headers), 'body', logger)
        : undefined,
    principal,
    headers,
    permission: route.permission,
    event,
    limits,
    logger,
  } as RouteInput<R>;
}

/** The request's body is one of the media types the route reads itself (its `body` is then undefined). */
export function isRawBody(route: RouteDefinition, headers: Record<string, string>): boolean {
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return route.rawBodyMediaTypes?.includes(mediaType) ?? false;
}

function jsonBodyOf(event: APIGatewayProxyEvent, headers: Record<string, string>): unknown {
  if (event.body !== null && event.body !== undefined && event.body !== '') {
    requireJsonContentType(headers['content-type']);
  }
  return parseJsonBody(event);
}

export function lowercaseHeaders(headers: APIGatewayProxyEvent['headers'] | null): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (typeof value === 'string') result[name.toLowerCase()] = value;
  return result;
}

/**
 * API Gateway REST passes path parameters as the client sent them, still percent-encoded (the
 * local server does the same), so they are decoded here, once, for both. The ids and names this
 * service hands out never contain `%`, so a gateway that had decoded already would change nothing.
 */
export function decodePathParameters(
  parameters: APIGatewayProxyEvent['pathParameters'],
): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters ?? {})) {
    if (typeof value !== 'string') continue;
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      throw new ValidationError(`Invalid path parameter "${name}": malformed percent-encoding`, [
        { path: name, message: 'Malformed percent-encoding' },
      ]);
    }
  }
  return decoded;
}

export function validate<T extends z.core.$ZodType | undefined>(
  schema: T,
  value: unknown,
  where: string,
  logger: Logger = rootLogger,
): unknown {
  if (!schema) return undefined;
  const parsed = safeParse(schema, value, where, logger);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code !== 'unrecognized_keys')
      return [{ path: path.join('.') || '(root)', message: issue.message }];
    // One detail per unknown member, named, with what the object takes instead (a new user's
    // `graph` for `state` is otherwise read as an empty workflow).
    const known = path.length === 0 ? membersOf(schema) : [];
    const instead = known.length > 0 ? `; expected one of ${known.join(', ')}` : '';
    return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: `Unknown member${instead}` }));
  });
  const first = details[0];
  const field = first.path === '(root)' ? `Invalid ${where}` : `Invalid ${where} "${first.path}"`;
  throw new ValidationError(`${field}: ${first.message}`, details);
}

/** The members an object schema declares (none for any other schema). */
function membersOf(schema: z.core.$ZodType): string[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, unknown> };
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/**
 * A schema throws (rather than reports an issue) only from a refinement or transform that met
 * input it did not expect: the input is at fault, so it is a 400, and the message stays internal.
 */
function safeParse(schema: z.core.$ZodType, value: unknown, where: string, logger: Logger) {
  try {
    return z.safeParse(schema, value);
  } catch (error) {
    logger.warn('Schema threw on request input', { where, error: error as Error });
    throw new ValidationError(`Invalid ${where}`);
  }
}
