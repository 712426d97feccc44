/** Wire schemas of files: the file object and the upload URL request and answer. */
import { z } from 'zod';
import { maxFileBytes } from '../core/files/types';
import { id } from './schemas';

export const fileObject = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().describe('Presigned GET URL; valid for FILE_URL_EXPIRY_SECONDS (1 hour by default)'),
    type: z.string().describe('MIME type'),
    size: z.number().int().describe('Bytes'),
    key: z.string().describe('Where the service keeps it'),
    base64: z.string().optional(),
  })
  .meta({ id: 'FileObject' });

export const uploadUrlBody = z.strictObject({
  workspaceId: id,
  name: z.string().min(1).max(255),
  type: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'Must be a MIME type, e.g. application/pdf')
    .default('application/octet-stream'),
  size: z
    .number()
    .int()
    .min(0)
    .max(maxFileBytes, `Files may hold at most ${maxFileBytes / (1024 * 1024)} MB`),
});

export const uploadUrl = z.object({
  uploadUrl: z.string().describe('PUT the bytes here, with the same Content-Type, before it expires'),
  file: fileObject,
});
