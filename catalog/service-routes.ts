/** The service itself: its health and this API's OpenAPI document. Spread into the route table (catalog/routes.ts). */
import type { RouteDefinition } from './route-definition';

export const serviceRoutes = [
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
] as const satisfies readonly RouteDefinition[];
