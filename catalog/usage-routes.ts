/** The caller's rate limits and usage. Spread into the route table (catalog/routes.ts). */
import { type RouteDefinition, entities } from './route-definition';
import * as s from './schemas';

export const usageRoutes = [
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
] as const satisfies readonly RouteDefinition[];
