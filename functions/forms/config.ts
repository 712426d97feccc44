import { formRoutes } from '../../catalog/form-routes';
import { findPublicForm, publicFormConfig } from '../../core/forms/service';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';
import { formDeps } from '../wiring/forms';

/** Public: what the form page needs to draw itself. */
export const handler = publicRoute(formRoutes, 'getFormConfig', async ({ params }) => {
  const deps = formDeps();
  const form = await findPublicForm(deps, params.identifier);
  return ok({ data: await publicFormConfig(deps, form) }, { 'cache-control': 'no-store' });
});
