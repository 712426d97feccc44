/** Workflow import: the REST API passes a ZIP archive to its function as binary, and nothing else. */
import { describe, expect, it } from 'vitest';
import { ofType, synthesizeApp } from './app';

const { stacks, byStack } = synthesizeApp();

describe('REST API binary media types', () => {
  it('are exactly the media types routes read themselves: application/zip of the import', () => {
    // Act
    const [[, api]] = ofType(byStack(stacks.api).resources, 'AWS::ApiGateway::RestApi');

    // Assess
    // Never */*: every JSON body would then reach its function base64-encoded.
    expect(api.Properties.BinaryMediaTypes).toEqual(['application/zip']);
  });
});
