import { describe, expect, it } from 'vitest';
import { packedOpenApiDocuments } from '../../../catalog/openapi-documents';
import { openApiDocument } from '../../../catalog/openapi';
import { unpackOpenApiDocuments } from '../../../catalog/openapi-packing';

describe('the OpenAPI documents kept for the getOpenApi route', () => {
  it('are the documents the route table makes now (else run npm run openapi)', () => {
    // Act
    const kept = unpackOpenApiDocuments(packedOpenApiDocuments);

    // Assess
    expect(kept.standard).toEqual(openApiDocument({ singleSignOn: false }));
    expect(kept.singleSignOn).toEqual(openApiDocument({ singleSignOn: true }));
  });

  it('differ by single sign-on, so the route serves the one its switch names', () => {
    // Act
    const kept = unpackOpenApiDocuments(packedOpenApiDocuments);

    // Assess
    expect(kept.singleSignOn).not.toEqual(kept.standard);
  });
});
