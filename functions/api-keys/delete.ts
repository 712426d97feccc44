import { apiKeyRoutes } from '../../catalog/api-key-routes';
import { revokeApiKey } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(apiKeyRoutes, 'deleteApiKey', async ({ principal, params }) =>
  ok({ data: await revokeApiKey(identityDeps(), principal, params.keyId) }),
);
