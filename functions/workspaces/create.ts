import { createWorkspace } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('createWorkspace', async ({ principal, body }) => {
  const workspace = await createWorkspace(identityDeps(), principal.user.id, body.name);
  return created({ data: { ...workspace, permissions: 'admin' } });
});
