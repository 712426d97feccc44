import { describe, expect, it } from 'vitest';
import { readSwitches, switchValue } from '../../../core/config/switches';

describe('self-hosted switches', () => {
  it('are all off when nothing is set', () => {
    expect(readSwitches({})).toEqual({
      organizationsEnabled: false,
      accessControlEnabled: false,
      ssoEnabled: false,
      credentialSetsEnabled: false,
      invitationsDisabled: false,
    });
  });

  it('reads each switch plainly or with the NEXT_PUBLIC_ prefix', () => {
    expect(switchValue('SSO_ENABLED', { SSO_ENABLED: 'true' })).toBe(true);
    expect(switchValue('SSO_ENABLED', { NEXT_PUBLIC_SSO_ENABLED: 'true' })).toBe(true);
    expect(switchValue('DISABLE_INVITATIONS', { NEXT_PUBLIC_DISABLE_INVITATIONS: '1' })).toBe(true);
  });

  it('lets the plain name win over the prefixed one', () => {
    expect(switchValue('SSO_ENABLED', { SSO_ENABLED: 'false', NEXT_PUBLIC_SSO_ENABLED: 'true' })).toBe(false);
  });

  it('takes true, 1, yes and on in any case, and nothing else', () => {
    for (const on of ['true', 'TRUE', '1', 'yes', 'On'])
      expect(switchValue('SSO_ENABLED', { SSO_ENABLED: on })).toBe(true);
    for (const off of ['false', '0', '', 'enabled'])
      expect(switchValue('SSO_ENABLED', { SSO_ENABLED: off })).toBe(false);
  });

  it('turns organizations on with access control', () => {
    expect(readSwitches({ ACCESS_CONTROL_ENABLED: 'true' })).toMatchObject({
      organizationsEnabled: true,
      accessControlEnabled: true,
    });
  });
});
