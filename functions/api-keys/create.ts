import { issueApiKey } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('createApiKey', async ({ principal, body }) =>
  created({ data: await issueApiKey(identityDeps(), principal.user.id, body.name) }),
);
