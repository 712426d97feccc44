/** The check every organization route of the management API starts with: switch on, caller's role. */
import { requireOrganizationRole, requireOrganizationsEnabled } from '../../core/identity/organizations';
import type { IdentityDeps, Principal } from '../../core/identity/service';
import type { OrganizationMembership } from '../../core/identity/types';
import { switchesSetting } from '../settings';

/** The organization role a route's declared permission stands for. */
export const roleOf = { organizationMember: 'member', organizationAdmin: 'admin' } as const;

/** The caller's membership, at least the role the route declares (catalog/organization-routes.ts). */
export async function requireOrganizationCaller(
  deps: IdentityDeps,
  input: { principal: Principal; permission: keyof typeof roleOf },
  organizationId: string,
): Promise<OrganizationMembership> {
  requireOrganizationsEnabled(switchesSetting());
  return requireOrganizationRole(deps, input.principal, organizationId, roleOf[input.permission]);
}
