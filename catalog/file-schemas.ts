/** Wire schemas of files: the file object and the upload URL request and answer. */
import * as z from './zod';
import { maxFileBytes } from '../core/files/types';
import { id } from './schemas';

export const fileObject = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().register(z.globalRegistry, {
      description: 'Presigned GET URL; valid for FILE_URL_EXPIRY_SECONDS (1 hour by default)',
    }),
    type: z.string().register(z.globalRegistry, { description: 'MIME type' }),
    size: z.number().check(z.int()).register(z.globalRegistry, { description: 'Bytes' }),
    key: z.string().register(z.globalRegistry, { description: 'Where the service keeps it' }),
    base64: z.optional(z.string()),
  })
  .register(z.globalRegistry, { id: 'FileObject' });

export const uploadUrlBody = z.strictObject({
  workspaceId: id,
  name: z.string().check(z.minLength(1), z.maxLength(255)),
  type: z._default(
    z.string().check(z.regex(/^[\w.+-]+\/[\w.+-]+$/, 'Must be a MIME type, e.g. application/pdf')),
    'application/octet-stream',
  ),
  // Over the limit is a 413 from the service (core/files/service.ts), not a 400 of the schema.
  size: z
    .number()
    .check(z.int(), z.gte(0))
    .register(z.globalRegistry, {
      description: `Bytes; the upload must send exactly this many (at most ${maxFileBytes} bytes, 20 MB: more is a 413)`,
    }),
});

export const uploadUrl = z.object({
  uploadUrl: z.string().register(z.globalRegistry, {
    description:
      'PUT the bytes here before it expires, with the same Content-Type and a Content-Length of exactly size bytes',
  }),
  file: fileObject,
});
