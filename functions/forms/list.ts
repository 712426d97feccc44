import { formRoutes } from '../../catalog/form-routes';
import { listForms } from '../../core/forms/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { formDeps } from '../wiring/forms';
import { publicBaseUrl } from '../wiring/webhooks';

export const handler = httpRoute(formRoutes, 'listForms', async ({ principal, query, headers, event }) =>
  ok({ data: await listForms(formDeps(), principal, query.workspaceId, publicBaseUrl(event, headers)) }),
);
