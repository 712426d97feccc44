import { formRoutes } from '../../catalog/form-routes';
import { deleteForm } from '../../core/forms/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { formDeps } from '../wiring/forms';

export const handler = httpRoute(formRoutes, 'deleteForm', async ({ principal, params }) =>
  ok({ data: await deleteForm(formDeps(), principal, params.formId) }),
);
