import { dynamoDocumentClient } from '../../adapters/aws/dynamodb-client';

/**
 * What `make` builds, kept for the process so that its cache serves every request, and built again
 * when the DynamoDB client (the local emulators moved) or the value of `keyOf` (a setting) changes.
 */
export function keptPerClient<T>(make: () => T, keyOf: () => string = () => ''): () => T {
  let kept: { client: unknown; key: string; value: T } | undefined;
  return () => {
    const client = dynamoDocumentClient();
    const key = keyOf();
    if (kept?.client !== client || kept.key !== key) kept = { client, key, value: make() };
    return kept.value;
  };
}
