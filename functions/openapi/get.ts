import { openApiDocument } from '../../catalog/openapi';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';

let document: ReturnType<typeof openApiDocument> | undefined;

export const handler = httpRoute('getOpenApi', async () => {
  document ??= openApiDocument();
  return ok(document);
});
