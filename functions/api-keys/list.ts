import { apiKeyRoutes } from '../../catalog/api-key-routes';
import { listApiKeys } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(apiKeyRoutes, 'listApiKeys', async ({ principal }) =>
  ok({ data: await listApiKeys(identityDeps(), principal) }),
);
