import { formRoutes } from '../../catalog/form-routes';
import { bringsCredentials, findPublicForm, publicFormConfig } from '../../core/forms/service';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';
import { formDeps } from '../wiring/forms';
import { credentialsOfHeaders, provenFormAccess } from './access';

const noStore = { 'cache-control': 'no-store' };

/**
 * Public: what the form page needs to draw itself. A password or e-mail form answers 401 with only
 * its `authType` until the request proves access (`x-form-password` / `x-form-email`), which is
 * checked and limited as a submission's is.
 */
export const handler = publicRoute(
  formRoutes,
  'getFormConfig',
  async ({ params, headers, event, limits }) => {
    const deps = formDeps();
    const form = await findPublicForm(deps, params.identifier);
    // First, so that a form gone offline is a 404 to everyone, as its submissions are.
    const config = await publicFormConfig(deps, form);
    if (form.authType !== 'public') {
      const credentials = credentialsOfHeaders(headers);
      if (!bringsCredentials(form, credentials))
        return { statusCode: 401, headers: noStore, body: { authType: form.authType } };
      await provenFormAccess(deps, form, credentials, event, limits);
    }
    return ok({ data: config }, noStore);
  },
);
