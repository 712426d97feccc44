import { SQSClient } from '@aws-sdk/client-sqs';
import { decorated, leanForInProcess, localOptions, onResetClients, region } from './client-options';
import { optionalEnv } from './require-env';

let sqs: SQSClient | undefined;
onResetClients(() => {
  sqs = undefined;
});

export function sqsClient(): SQSClient {
  const endpoint = optionalEnv('SQS_ENDPOINT');
  sqs ??= decorated(
    leanForInProcess(new SQSClient({ region: region(), ...localOptions(endpoint) }), endpoint),
    'SQS',
  );
  return sqs;
}
