import { fileRoutes } from '../../catalog/file-routes';
import { requestUpload } from '../../core/files/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { fileUrlDeps } from '../wiring/file-urls';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(fileRoutes, 'createUploadUrl', async ({ principal, body }) =>
  ok({
    data: await requestUpload({ identity: identityDeps().store, files: fileUrlDeps() }, principal, body),
  }),
);
