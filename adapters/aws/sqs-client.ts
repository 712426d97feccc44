import { SQSClient } from '@aws-sdk/client-sqs';
import { withMetering } from '../metering';
import { leanForInProcess, localOptions, onResetClients, region } from './client-options';

let sqs: SQSClient | undefined;
onResetClients(() => {
  sqs = undefined;
});

export function sqsClient(): SQSClient {
  sqs ??= withMetering(
    leanForInProcess(
      new SQSClient({ region: region(), ...localOptions(process.env.SQS_ENDPOINT) }),
      process.env.SQS_ENDPOINT,
    ),
    'SQS',
  );
  return sqs;
}
