/** Wiring of invitations: their store, the token secret, the e-mail channel and the switches. */
import { DynamoInvitationStore } from '../../adapters/dynamodb/invitation-store';
import { serviceSecret } from '../../adapters/secrets/service-secret';
import { secrets } from '../../catalog/resources';
import { readSwitches } from '../../core/config/switches';
import type { InvitationDeps } from '../../core/invitations/service';
import { emailSender } from './email';
import { identityDeps } from './identity';
import { invitationsDisabledFor } from './permissions';

const tokenKey = serviceSecret(secrets.invitationToken);

export function invitationDeps(options: { sendsEmail?: boolean } = {}): InvitationDeps {
  return {
    identity: identityDeps(),
    invitations: DynamoInvitationStore.fromEnv(),
    // The inviter's permission group may turn invitations off (functions/wiring/permissions.ts).
    policy: { invitationsDisabledFor },
    tokenKey,
    ...(options.sendsEmail ? { email: emailSender() } : {}),
    switches: readSwitches(),
    publicBaseUrl: process.env.PUBLIC_BASE_URL,
    now: () => new Date(),
  };
}
