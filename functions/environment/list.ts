import { listEnvironmentVariables } from '../../core/environment/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { environmentDeps } from '../wiring/environment';

export const handler = httpRoute('listEnvironmentVariables', async ({ principal, params }) =>
  ok({ data: await listEnvironmentVariables(environmentDeps(), principal, params.workspaceId) }),
);
