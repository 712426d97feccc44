import { SQSClient } from '@aws-sdk/client-sqs';
import { decorated, leanForInProcess, localOptions, onResetClients, region } from './client-options';

let sqs: SQSClient | undefined;
onResetClients(() => {
  sqs = undefined;
});

export function sqsClient(): SQSClient {
  sqs ??= decorated(
    leanForInProcess(
      new SQSClient({ region: region(), ...localOptions(process.env.SQS_ENDPOINT) }),
      process.env.SQS_ENDPOINT,
    ),
    'SQS',
  );
  return sqs;
}
