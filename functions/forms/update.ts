import { formRoutes } from '../../catalog/form-routes';
import { updateForm } from '../../core/forms/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { formDeps } from '../wiring/forms';
import { publicBaseUrl } from '../wiring/webhooks';

export const handler = httpRoute(
  formRoutes,
  'updateForm',
  async ({ principal, params, body, headers, event }) =>
    ok({
      data: await updateForm(formDeps(), principal, params.formId, body, publicBaseUrl(event, headers)),
    }),
);
