/** The console's dashboard figures. Spread into the route table (catalog/routes.ts). */
import * as metrics from './metrics-schemas';
import { entities, type RouteDefinition } from './route-definition';

export const metricsRoutes = [
  {
    id: 'getMetrics',
    method: 'GET',
    path: '/api/v1/metrics',
    entry: 'functions/metrics/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary:
      "A workspace's runs, errors, p50/p95 duration and cost per hour or per day, and the workflows that fail most, from counters kept as runs end",
    tag: 'logs',
    request: { query: metrics.metricsQuery },
    responses: { 200: { description: 'One point per bucket', body: metrics.metricsAnswer } },
    // Entities: the caller's membership of the workspace.
    access: { tables: { ...entities.tables, metrics: 'read' } },
  },
] as const satisfies readonly RouteDefinition[];
