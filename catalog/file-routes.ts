/** Files: upload URLs. Spread into the route table (catalog/routes.ts). */
import * as files from './file-schemas';
import type { RouteDefinition } from './route-definition';
import * as s from './schemas';

export const fileRoutes = [
  // Files
  {
    id: 'createUploadUrl',
    method: 'POST',
    path: '/api/files/upload-url',
    entry: 'functions/files/upload-url.ts',
    auth: 'apiKey',
    permission: 'write',
    summary:
      'A presigned URL to upload a file too large for a request body; pass the answered file as {name, url, type}',
    tag: 'files',
    request: { body: files.uploadUrlBody },
    responses: {
      200: { description: 'Upload URL and file', body: s.data(files.uploadUrl) },
      413: { description: 'size is over 20 MB, the most one file may hold (code PAYLOAD_TOO_LARGE)' },
    },
    access: { tables: { entities: 'read' }, buckets: { files: 'readWrite' } },
  },
] as const satisfies readonly RouteDefinition[];
