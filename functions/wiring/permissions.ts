/** Wiring of permission groups: the store, organization roles from the identity store, the switch. */
import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { DynamoPermissionGroupStore } from '../../adapters/dynamodb/permission-group-store';
import type { WorkflowGraph } from '../../core/engine/types';
import type { User } from '../../core/identity/types';
import { graphViolations, type Violation } from '../../core/permissions/check';
import {
  accessPolicyFor,
  invitationsDisabledFor as invitationsDisabledByPolicy,
  type PermissionGroupDeps,
} from '../../core/permissions/service';
import type { AccessPolicy } from '../../core/permissions/types';
import { switchesSetting } from '../settings';

/** The switch is read on each call, so an operator's change applies from the next request. */
export function permissionGroupDeps(): PermissionGroupDeps {
  return {
    groups: DynamoPermissionGroupStore.fromEnv(),
    identity: DynamoIdentityStore.fromEnv(),
    accessControlEnabled: switchesSetting().accessControlEnabled,
    now: () => new Date(),
  };
}

/** The policy a user's runs and saves are checked against (none: full access). */
export function accessPolicyOf(user: Pick<User, 'id' | 'organizationId'>): Promise<AccessPolicy | undefined> {
  return accessPolicyFor(permissionGroupDeps(), user);
}

/**
 * What a save or deploy answer adds when the saver's permission group does not allow some of the
 * graph's blocks: `warnings`, each naming its block (and provider). The graph is read only then.
 */
export async function permissionWarnings(
  user: Pick<User, 'id' | 'organizationId'>,
  graphOf: () => WorkflowGraph | Promise<WorkflowGraph>,
): Promise<{ warnings?: Violation[] }> {
  const policy = await accessPolicyOf(user);
  if (!policy) return {};
  const warnings = graphViolations(await graphOf(), policy);
  return warnings.length > 0 ? { warnings } : {};
}

/**
 * Whether the user may not invite anyone into the organization: DISABLE_INVITATIONS, or their
 * permission group's `disableInvitations`. For the invitation routes to ask before they invite.
 */
export async function invitationsDisabledFor(
  userId: string,
  organizationId: string | undefined,
): Promise<boolean> {
  const { invitationsDisabled } = switchesSetting();
  if (organizationId === undefined) return invitationsDisabled;
  return invitationsDisabledByPolicy(
    { ...permissionGroupDeps(), invitationsDisabled },
    userId,
    organizationId,
  );
}
