import { logRoutes } from '../../catalog/log-routes';
import { httpRoute } from '../http/route';
import { executionDetailAnswer } from './execution';

/** `/v1/logs/executions/{id}`, a delivery's links.execution: the same answer as under /api. */
export const handler = httpRoute(logRoutes, 'getLogExecutionLink', executionDetailAnswer);
