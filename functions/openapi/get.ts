import { serviceRoutes } from '../../catalog/service-routes';
import { openApiDocument } from '../../catalog/openapi';
import { readSwitches } from '../../core/config/switches';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';

/** Built once per process for each setting of the switch it depends on. */
const documents = new Map<boolean, ReturnType<typeof openApiDocument>>();

export const handler = httpRoute(serviceRoutes, 'getOpenApi', async () => {
  const singleSignOn = readSwitches().ssoEnabled;
  let document = documents.get(singleSignOn);
  if (!document) {
    document = openApiDocument({ singleSignOn });
    documents.set(singleSignOn, document);
  }
  return ok(document);
});
