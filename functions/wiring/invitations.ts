/** Wiring of invitations: their store, the token secret, the e-mail channel and the switches. */
import { DynamoInvitationStore } from '../../adapters/dynamodb/invitation-store';
import { serviceSecret } from '../../adapters/secrets/service-secret';
import { secrets } from '../../catalog/resources';
import { readSwitches } from '../../core/config/switches';
import type { InvitationDeps } from '../../core/invitations/service';
import { allowAllInvitations } from '../../core/invitations/types';
import { emailSender } from './email';
import { identityDeps } from './identity';

const tokenKey = serviceSecret(secrets.invitationToken);

export function invitationDeps(options: { sendsEmail?: boolean } = {}): InvitationDeps {
  return {
    identity: identityDeps(),
    invitations: DynamoInvitationStore.fromEnv(),
    // Permission groups' "disable invitations" plugs in here once they exist.
    policy: allowAllInvitations,
    tokenKey,
    ...(options.sendsEmail ? { email: emailSender() } : {}),
    switches: readSwitches(),
    publicBaseUrl: process.env.PUBLIC_BASE_URL,
    now: () => new Date(),
  };
}
