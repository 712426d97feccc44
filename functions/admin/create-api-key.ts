import { adminRoutes } from '../../catalog/admin-routes';
import { issueApiKey } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminCreateApiKey', async ({ params, body }) =>
  created({ data: await issueApiKey(identityDeps(), params.userId, body.name) }),
);
