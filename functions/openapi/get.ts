import { type OpenApiDocuments, unpackOpenApiDocuments } from '../../catalog/openapi-packing';
import { packedOpenApiDocuments } from '../../catalog/openapi-documents';
import { serviceRoutes } from '../../catalog/service-routes';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';
import { switchesSetting } from '../settings';

/** Unpacked by the first request: the documents were made from the route table at build time. */
let documents: OpenApiDocuments | undefined;

export const handler = publicRoute(serviceRoutes, 'getOpenApi', async () => {
  documents ??= unpackOpenApiDocuments(packedOpenApiDocuments);
  return ok(switchesSetting().ssoEnabled ? documents.singleSignOn : documents.standard);
});
