import { listWorkspaces } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('listWorkspaces', async ({ principal }) =>
  ok({ data: await listWorkspaces(identityDeps(), principal) }),
);
