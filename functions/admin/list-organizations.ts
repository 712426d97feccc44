import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('adminListOrganizations', async () =>
  ok({ data: await identityDeps().store.listOrganizations() }),
);
