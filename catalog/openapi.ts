/** The OpenAPI 3.1 document, generated from the route table's zod schemas. */
import { acceptsIdToken, drawsTokens, type RouteDefinition, routes } from './routes';
import { errorBody } from './schemas';
import * as z from './zod';

type JsonSchema = Record<string, unknown>;

/** Named schemas (zod `.meta({ id })`) collected while converting, published under components. */
let components: Record<string, JsonSchema> = {};

/** zod puts named schemas in `$defs`; OpenAPI wants them in `components/schemas`. */
function toSchema(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  const text = JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/');
  const {
    $schema: _schema,
    $defs,
    ...rest
  } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  for (const [name, definition] of Object.entries($defs ?? {})) components[name] ??= definition;
  return rest;
}

function parameters(route: RouteDefinition): JsonSchema[] {
  const result: JsonSchema[] = [];
  for (const location of ['params', 'query'] as const) {
    const schema = route.request?.[location];
    if (!schema) continue;
    const json = toSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      result.push({
        name,
        in: location === 'params' ? 'path' : 'query',
        required: location === 'params' || (json.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return result;
}

/** Alternatives: an ID token is an option only where single sign-on is on and the route takes one. */
function security(route: RouteDefinition, options: OpenApiOptions): JsonSchema[] {
  if (route.auth === 'apiKey' && options.singleSignOn && acceptsIdToken(route)) {
    return [{ apiKey: [] }, { idToken: [] }];
  }
  if (route.auth === 'apiKey') return [{ apiKey: [] }];
  if (route.auth === 'admin') return [{ adminKey: [] }];
  return [];
}

const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests per minute of the bucket the request drew from',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Whole tokens left in that bucket', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'When the next token comes (ISO 8601); now when the bucket is full',
    schema: { type: 'string', format: 'date-time' },
  },
};

function operation(route: RouteDefinition, options: OpenApiOptions): JsonSchema {
  const errorContent = { 'application/json': { schema: toSchema(errorBody, 'output') } };
  const headers = drawsTokens(route) ? { headers: rateLimitHeaders } : {};
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...headers,
      ...(response.body
        ? { content: { 'application/json': { schema: toSchema(response.body, 'output') } } }
        : {}),
    };
  }
  if (route.rateLimit !== undefined) {
    responses['402'] = {
      description: "The month's cost has reached the usage limit (code USAGE_LIMIT_EXCEEDED)",
      ...headers,
      content: errorContent,
    };
  }
  if (drawsTokens(route)) {
    responses['429'] = {
      description:
        route.rateLimit === undefined
          ? 'No token left in the bucket (code RATE_LIMIT_EXCEEDED)'
          : 'No token left in the bucket (code RATE_LIMIT_EXCEEDED), or the workspace has as many runs in progress as its plan allows (code CONCURRENCY_LIMIT_EXCEEDED)',
      headers: {
        'Retry-After': { description: 'Whole seconds until the next token', schema: { type: 'integer' } },
        ...rateLimitHeaders,
      },
      content: errorContent,
    };
  }
  responses['4XX'] = { description: 'Error', ...headers, content: errorContent };
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [route.tag],
    security: security(route, options),
    // Who may call it (RoutePermission in catalog/routes.ts): a workspace level, an organization role, ...
    'x-permission': route.permission,
    parameters: parameters(route),
    ...(route.request?.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: toSchema(route.request.body, 'input') },
              ...Object.fromEntries(
                (route.rawBodyMediaTypes ?? []).map((type) => [
                  type,
                  { schema: { type: 'string', format: 'binary' } },
                ]),
              ),
            },
          },
        }
      : {}),
    responses,
  };
}

export interface OpenApiOptions {
  /** SSO_ENABLED: the management and log routes also take an ID token. */
  singleSignOn?: boolean;
}

const idTokenScheme = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description:
    "An ID token of the service's identity provider (Authorization: Bearer); its email claim names the user",
};

export function openApiDocument(options: OpenApiOptions = {}): JsonSchema {
  components = {};
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes as readonly RouteDefinition[]) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route, options);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Workflow service API', version: '1.0.0' },
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        adminKey: { type: 'apiKey', in: 'header', name: 'x-admin-key' },
        ...(options.singleSignOn ? { idToken: idTokenScheme } : {}),
      },
    },
    paths,
  };
}
