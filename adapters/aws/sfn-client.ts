import { SFNClient } from '@aws-sdk/client-sfn';
import { decorated, localOptions, onResetClients, region } from './client-options';

let sfn: SFNClient | undefined;
onResetClients(() => {
  sfn = undefined;
});

export function sfnClient(): SFNClient {
  sfn ??= decorated(
    new SFNClient({ region: region(), ...localOptions(process.env.SFN_ENDPOINT) }),
    'StepFunctions',
  );
  return sfn;
}
