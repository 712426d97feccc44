/**
 * The OpenAPI documents as the getOpenApi route serves them: made from the route table when the
 * project is built (`npm run openapi`, scripts/openapi.ts) and kept in catalog/openapi-documents.ts
 * brotli-compressed, so the route carries neither every route's schemas nor zod's JSON Schema
 * conversion, only about 12 KB of packed text. test/unit/catalog/openapi-documents.test.ts holds
 * the kept documents equal to the ones the route table makes now.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** The document without and with single sign-on (the `SSO_ENABLED` switch). */
export interface OpenApiDocuments {
  standard: Record<string, unknown>;
  singleSignOn: Record<string, unknown>;
}

/** The two documents in one brotli stream, base64: a window wide enough to find the second one in the first. */
export function packOpenApiDocuments(documents: OpenApiDocuments): string {
  return brotliCompressSync(Buffer.from(JSON.stringify(documents)), {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
    },
  }).toString('base64');
}

export function unpackOpenApiDocuments(packed: string): OpenApiDocuments {
  return JSON.parse(brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8')) as OpenApiDocuments;
}
