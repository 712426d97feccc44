/**
 * Wiring of invitations: their store, the token secret and the switches. The e-mail channel is in
 * ./invitation-email.ts, imported only by the routes that send an invitation.
 */
import { DynamoInvitationStore } from '../../adapters/dynamodb/invitation-store';
import { serviceSecret } from '../../adapters/secrets/service-secret';
import { secrets } from '../../catalog/resources';
import type { InvitationDeps } from '../../core/invitations/service';
import { identityDeps } from './identity';
import { invitationsDisabledFor } from './permissions';
import { setting, switchesSetting } from '../settings';

const tokenKey = serviceSecret(secrets.invitationToken);

export function invitationDeps(): InvitationDeps {
  return {
    identity: identityDeps(),
    invitations: DynamoInvitationStore.fromEnv(),
    // The inviter's permission group may turn invitations off (functions/wiring/permissions.ts).
    policy: { invitationsDisabledFor },
    tokenKey,
    switches: switchesSetting(),
    publicBaseUrl: setting('PUBLIC_BASE_URL'),
    now: () => new Date(),
  };
}
