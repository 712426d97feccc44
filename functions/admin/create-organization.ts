import { createOrganization } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('adminCreateOrganization', async ({ body }) =>
  created({ data: await createOrganization(identityDeps(), body) }),
);
