import { formRoutes } from '../../catalog/form-routes';
import { getForm } from '../../core/forms/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { formDeps } from '../wiring/forms';
import { publicBaseUrl } from '../wiring/webhooks';

export const handler = httpRoute(formRoutes, 'getForm', async ({ principal, params, headers, event }) =>
  ok({ data: await getForm(formDeps(), principal, params.formId, publicBaseUrl(event, headers)) }),
);
