import { serviceRoutes } from '../../catalog/service-routes';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';

export const handler = httpRoute(serviceRoutes, 'getHealth', async () => ok({ status: 'ok' }));
