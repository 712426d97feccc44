/**
 * The self-hosted switches: environment variables that turn enterprise features on or off. Each is
 * also read with the `NEXT_PUBLIC_` prefix, which self-hosted installs of the product this service
 * replaces already set, so their settings carry over unchanged.
 */

export const switchNames = [
  'ORGANIZATIONS_ENABLED',
  'ACCESS_CONTROL_ENABLED',
  'SSO_ENABLED',
  'CREDENTIAL_SETS_ENABLED',
  'DISABLE_INVITATIONS',
] as const;

export type SwitchName = (typeof switchNames)[number];

export interface Switches {
  /** Organizations: members, roles, an organization's workspaces and plan. */
  organizationsEnabled: boolean;
  /** Permission groups; turns organizations on too, since groups belong to one. */
  accessControlEnabled: boolean;
  /** ID tokens of the identity provider are accepted on the management and log routes. */
  ssoEnabled: boolean;
  credentialSetsEnabled: boolean;
  /** Invitations refused everywhere; membership is then managed through the admin API. */
  invitationsDisabled: boolean;
}

type Environment = Record<string, string | undefined>;

const truthy = new Set(['1', 'true', 'yes', 'on']);

/** The plain name wins over the `NEXT_PUBLIC_` one when both are set. */
export function switchValue(name: SwitchName, env: Environment): boolean {
  const raw = env[name] ?? env[`NEXT_PUBLIC_${name}`];
  return raw !== undefined && truthy.has(raw.trim().toLowerCase());
}

export function readSwitches(env: Environment): Switches {
  const accessControlEnabled = switchValue('ACCESS_CONTROL_ENABLED', env);
  return {
    organizationsEnabled: accessControlEnabled || switchValue('ORGANIZATIONS_ENABLED', env),
    accessControlEnabled,
    ssoEnabled: switchValue('SSO_ENABLED', env),
    credentialSetsEnabled: switchValue('CREDENTIAL_SETS_ENABLED', env),
    invitationsDisabled: switchValue('DISABLE_INVITATIONS', env),
  };
}
