/**
 * Writes catalog/openapi-documents.ts: the OpenAPI documents the getOpenApi route serves, made
 * from the route table (catalog/openapi.ts) without and with single sign-on and packed
 * (catalog/openapi-packing.ts). Run it after changing a route or a schema; the unit test
 * test/unit/catalog/openapi-documents.test.ts fails until the kept documents are made anew.
 *
 *   npm run openapi
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../catalog/openapi';
import { packOpenApiDocuments } from '../catalog/openapi-packing';
import { fromProjectRoot } from '../lib/project';

export const openApiDocumentsFile = fromProjectRoot('catalog/openapi-documents.ts');

/** The module's text: the packed documents as one string constant. */
export function openApiDocumentsModule(): string {
  const packed = packOpenApiDocuments({
    standard: openApiDocument({ singleSignOn: false }),
    singleSignOn: openApiDocument({ singleSignOn: true }),
  });
  return [
    '/**',
    ' * Made by `npm run openapi` (scripts/openapi.ts) from the route table: do not edit. The OpenAPI',
    ' * documents without and with single sign-on, packed (catalog/openapi-packing.ts).',
    ' */',
    `export const packedOpenApiDocuments =\n  '${packed}';`,
    '',
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(openApiDocumentsFile, openApiDocumentsModule());
  console.log(`Wrote ${openApiDocumentsFile}`);
}
