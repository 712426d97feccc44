import { apiKeyRoutes } from '../../catalog/api-key-routes';
import { issueApiKey } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(apiKeyRoutes, 'createApiKey', async ({ principal, body }) =>
  created({ data: await issueApiKey(identityDeps(), principal.user.id, body.name) }),
);
