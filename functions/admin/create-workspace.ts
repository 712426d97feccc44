import { createWorkspace } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('adminCreateWorkspace', async ({ body }) =>
  created({ data: await createWorkspace(identityDeps(), body.ownerId, body.name, body.organizationId) }),
);
