import { metricsRoutes } from '../../catalog/metrics-routes';
import { readMetrics } from '../../core/metrics/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { metricsDeps } from '../wiring/metrics';

export const handler = httpRoute(metricsRoutes, 'getMetrics', async ({ principal, query }) =>
  ok(await readMetrics(metricsDeps(), principal, query)),
);
