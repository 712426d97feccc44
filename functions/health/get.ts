import { serviceRoutes } from '../../catalog/service-routes';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';

export const handler = publicRoute(serviceRoutes, 'getHealth', async () => ok({ status: 'ok' }));
