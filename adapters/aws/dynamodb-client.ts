import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decorated, leanForInProcess, localOptions, onResetClients, region } from './client-options';
import { optionalEnv } from './require-env';

let documentClient: DynamoDBDocumentClient | undefined;
onResetClients(() => {
  documentClient = undefined;
});

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  const endpoint = optionalEnv('DYNAMODB_ENDPOINT');
  // The document client shares its plain client's config and middleware: one lean call serves both.
  documentClient ??= leanForInProcess(
    DynamoDBDocumentClient.from(
      decorated(new DynamoDBClient({ region: region(), ...localOptions(endpoint) }), 'DynamoDB'),
      { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } },
    ),
    endpoint,
  );
  return documentClient;
}
