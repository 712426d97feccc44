import { revokeApiKey } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('deleteApiKey', async ({ principal, params }) =>
  ok({ data: await revokeApiKey(identityDeps(), principal, params.keyId) }),
);
