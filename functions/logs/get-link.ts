import { logRoutes } from '../../catalog/log-routes';
import { httpRoute } from '../http/route';
import { logDetailAnswer } from './get';

/** `/v1/logs/{id}`, the path a delivery's links.log carries: the same answer as /api/v1/logs/{id}. */
export const handler = httpRoute(logRoutes, 'getLogLink', logDetailAnswer);
