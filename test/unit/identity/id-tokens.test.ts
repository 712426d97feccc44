import { describe, expect, it } from 'vitest';
import { type RouteDefinition, acceptsIdToken, routes } from '../../../catalog/routes';
import { UnauthorizedError } from '../../../core/errors';
import {
  bearerTokenOf,
  type IdTokenVerifier,
  principalOfIdToken,
  type VerifiedIdToken,
} from '../../../core/identity/id-tokens';
import type { IdentityDeps } from '../../../core/identity/service';
import type { IdentityStore, User } from '../../../core/identity/types';
import { idTokenVerifier } from '../../../functions/wiring/id-tokens';

const ada: User = { id: 'usr_ada', email: 'ada@example.com', name: 'Ada', plan: 'free', createdAt: '' };

/** Users by e-mail, compared as the real store compares them (trimmed, lowercased). */
function depsWith(users: User[]): IdentityDeps {
  const store = {
    findUserByEmail: async (email: string) => users.find((user) => user.email === email.trim().toLowerCase()),
  } as unknown as IdentityStore;
  return { store, now: () => new Date(0) };
}

const verifierSaying = (verified: VerifiedIdToken): IdTokenVerifier => ({ verify: async () => verified });

describe('principalOfIdToken', () => {
  it('acts as the user with the token e-mail address, marked as signed on', async () => {
    // Act
    const principal = await principalOfIdToken(
      depsWith([ada]),
      verifierSaying({ subject: 'sub-1', email: ' ADA@example.com' }),
      'token',
    );

    // Assess
    expect(principal).toEqual({ user: ada, apiKeyId: 'sso:sub-1' });
  });

  it('refuses a token with no email claim, and an address no user has', async () => {
    await expect(
      principalOfIdToken(depsWith([ada]), verifierSaying({ subject: 'sub-1' }), 'token'),
    ).rejects.toThrow(new UnauthorizedError('The ID token has no email claim'));
    await expect(
      principalOfIdToken(
        depsWith([ada]),
        verifierSaying({ subject: 'sub-2', email: 'eve@example.com' }),
        'token',
      ),
    ).rejects.toThrow(/No user of this service has the e-mail address/);
  });

  it('passes on what the verifier refuses', async () => {
    const refusing: IdTokenVerifier = {
      verify: async () => {
        throw new UnauthorizedError('The ID token has expired');
      },
    };
    await expect(principalOfIdToken(depsWith([ada]), refusing, 'token')).rejects.toThrow(
      'The ID token has expired',
    );
  });
});

describe('bearerTokenOf', () => {
  it('takes the token of a Bearer header in any case of the scheme', () => {
    expect(bearerTokenOf('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerTokenOf('bearer  abc.def.ghi ')).toBe('abc.def.ghi');
  });

  it('finds none in a missing header, another scheme, or a Bearer with no token', () => {
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b']) {
      expect(bearerTokenOf(header), String(header)).toBeUndefined();
    }
  });
});

describe('acceptsIdToken', () => {
  const byId = new Map((routes as readonly RouteDefinition[]).map((route) => [route.id, route]));
  const takes = (id: string) => acceptsIdToken(byId.get(id) as RouteDefinition);

  it('holds for management and log routes', () => {
    for (const id of ['listWorkspaces', 'createWorkflow', 'listLogs', 'getLog', 'getJob', 'createApiKey']) {
      expect(takes(id), id).toBe(true);
    }
  });

  it('does not hold for runs, admin routes and public routes', () => {
    for (const id of [
      'executeWorkflow',
      'runWorkflow',
      'adminCreateUser',
      'triggerWebhook',
      'submitForm',
      'getHealth',
    ]) {
      expect(takes(id), id).toBe(false);
    }
  });
});

describe('idTokenVerifier', () => {
  it('names the missing setting when single sign-on has no provider', () => {
    expect(() => idTokenVerifier({ OIDC_AUDIENCE: 'client' })).toThrow(
      /OIDC_ISSUER or OIDC_AUDIENCE is not set/,
    );
    expect(() => idTokenVerifier({ OIDC_ISSUER: 'https://idp.example.com' })).toThrow(/not set/);
  });

  it('keeps one verifier per provider, so its keys are fetched once a process', () => {
    const env = { OIDC_ISSUER: 'https://idp.example.com', OIDC_AUDIENCE: 'client' };
    expect(idTokenVerifier(env)).toBe(idTokenVerifier({ ...env }));
    expect(idTokenVerifier({ ...env, OIDC_AUDIENCE: 'other' })).not.toBe(idTokenVerifier(env));
  });
});
