import { SFNClient } from '@aws-sdk/client-sfn';
import { decorated, localOptions, onResetClients, region } from './client-options';
import { optionalEnv } from './require-env';

let sfn: SFNClient | undefined;
onResetClients(() => {
  sfn = undefined;
});

export function sfnClient(): SFNClient {
  sfn ??= decorated(
    new SFNClient({ region: region(), ...localOptions(optionalEnv('SFN_ENDPOINT')) }),
    'StepFunctions',
  );
  return sfn;
}
