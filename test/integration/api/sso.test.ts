/**
 * Single sign-on through the local service, with a real OpenID provider on 127.0.0.1: with
 * SSO_ENABLED an ID token of the provider works instead of an API key on management and log
 * routes, acting as the user with its e-mail address and drawing from that user's bucket; runs keep
 * requiring an API key; with the switch off a token is refused.
 */
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../../support/oidc-provider';
import { deployedWorkflow, request, type Tenant, useLocalService } from '../../support/service';
import { changeSettings } from '../../support/settings';

// One token every 10 s: a bucket drawn from stays drawn from for the length of a test.
const slow = { requestsPerMinute: 6, maxBurst: 50 };
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { api: slow, sync: slow, async: slow },
  authFailures: { requestsPerMinute: 600_000, maxBurst: 100_000 },
});

let provider: TestOidcProvider;

// Registered before the service's own hook: the settings are checked when it starts.
beforeAll(async () => {
  provider = await startOidcProvider();
  changeSettings({ SSO_ENABLED: 'true' });
  changeSettings({ OIDC_ISSUER: provider.issuer });
  changeSettings({ OIDC_AUDIENCE: provider.clientId });
});

const service = useLocalService();

afterAll(async () => {
  await provider?.stop();
});

const withToken = <T = any>(token: string, method: string, path: string, body?: unknown) =>
  request<T>(service.get().url, method, path, { headers: { authorization: `Bearer ${token}` }, body });

/** Runs `act` with SSO_ENABLED off, then turns it back on. */
async function withSsoOff<T>(act: () => Promise<T>): Promise<T> {
  changeSettings({ SSO_ENABLED: 'false' });
  try {
    return await act();
  } finally {
    changeSettings({ SSO_ENABLED: 'true' });
  }
}

describe('single sign-on on', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await service.get().newTenant('sso');
  });

  it('a provider ID token works on a management route, as the user with its e-mail address', async () => {
    // Prepare: the e-mail address as the provider writes it, in another case
    const token = await provider.idTokenFor(tenant.email.toUpperCase());

    // Act
    const listed = await withToken(token, 'GET', '/api/workspaces');
    const neither = await request(service.get().url, 'GET', '/api/workspaces');

    // Assess
    expect(neither.status).toBe(401);
    expect(neither.body.error).toMatch(/x-api-key header or an ID token in Authorization: Bearer/);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((workspace: { id: string }) => workspace.id)).toEqual([tenant.workspaceId]);
  });

  it('a provider ID token reads the logs of a run started with the API key', async () => {
    // Prepare
    const workflowId = await deployedWorkflow(tenant);
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    expect(run.status).toBe(200);
    const token = await provider.idTokenFor(tenant.email);

    // Act
    const logs = await withToken(token, 'GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}`);

    // Assess
    expect(logs.status).toBe(200);
    expect(logs.body.data.map((entry: { executionId: string }) => entry.executionId)).toContain(
      run.body.metadata.executionId,
    );
  });

  it('runs keep requiring an API key: execute and the manual run refuse an ID token', async () => {
    // Prepare
    const workflowId = await deployedWorkflow(tenant);
    const token = await provider.idTokenFor(tenant.email);

    // Act
    const executed = await withToken(token, 'POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const ran = await withToken(token, 'POST', `/api/workflows/${workflowId}/run`, {
      input: { name: 'ada' },
    });
    const withKey = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });

    // Assess
    for (const answer of [executed, ran]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/API key/) });
    }
    expect(withKey.status).toBe(200);
  });

  it('draws from the user bucket, the one API key requests draw from, with its X-RateLimit headers', async () => {
    // Prepare: a user of their own, three requests with the key
    const user = await service.get().newTenant('sso-limits');
    let keyAnswer = await user.call('GET', '/api/workspaces');
    for (let i = 0; i < 2; i += 1) keyAnswer = await user.call('GET', '/api/workspaces');
    const keyRemaining = Number(keyAnswer.headers.get('x-ratelimit-remaining'));

    // Act
    const tokenAnswer = await withToken(await provider.idTokenFor(user.email), 'GET', '/api/workspaces');

    // Assess: a bucket of its own would still hold 49 of its 50
    expect(tokenAnswer.status).toBe(200);
    expect(tokenAnswer.headers.get('x-ratelimit-limit')).toBe('6');
    expect(keyRemaining).toBeLessThanOrEqual(47);
    expect(Number(tokenAnswer.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(keyRemaining);
    expect(tokenAnswer.headers.get('x-ratelimit-reset')).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('refuses a verified token whose e-mail address no user has (401)', async () => {
    // Act
    const answer = await withToken(await provider.idTokenFor('nobody@example.com'), 'GET', '/api/workspaces');

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      error: 'No user of this service has the e-mail address of the ID token',
      code: 'UNAUTHORIZED',
    });
  });

  it('refuses a known user token that fails a check, saying which (401)', async () => {
    // Prepare: each differs from a good token of the tenant in one respect
    const nowInSeconds = Math.floor(Date.now() / 1000);
    const claims = { email: tenant.email, sub: 'subject-1', iss: provider.issuer, aud: provider.clientId };
    const sign = (changes: Record<string, unknown>) =>
      new SignJWT({ ...claims, iat: nowInSeconds, exp: nowInSeconds + 600, ...changes })
        .setProtectedHeader({ alg: 'RS256', kid: provider.signingKey.kid })
        .sign(provider.signingKey.privateKey);
    const unsigned = new UnsecuredJWT({ ...claims, iat: nowInSeconds, exp: nowInSeconds + 600 }).encode();
    const cases = [
      [await sign({ iat: nowInSeconds - 7200, exp: nowInSeconds - 3600 }), 'The ID token has expired'],
      [await sign({ aud: 'another-client' }), 'The ID token was not issued for this service (audience)'],
      [
        await sign({ iss: 'https://idp.example.com' }),
        'The ID token was not issued by the configured identity provider',
      ],
      [unsigned, 'The ID token is not signed with an allowed algorithm'],
    ];

    for (const [token, message] of cases) {
      // Act
      const answer = await withToken(token, 'GET', '/api/workspaces');

      // Assess
      expect(answer.status, message).toBe(401);
      expect(answer.body).toEqual({ error: message, code: 'UNAUTHORIZED' });
    }
  });

  it('publishes the bearer scheme on the routes that take a token, and not on execute', async () => {
    // Act
    const document = (await request(service.get().url, 'GET', '/api/openapi.json')).body;

    // Assess
    expect(document.components.securitySchemes.idToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/api/workspaces'].get.security).toEqual([{ apiKey: [] }, { idToken: [] }]);
    expect(document.paths['/api/v1/logs'].get.security).toEqual([{ apiKey: [] }, { idToken: [] }]);
    expect(document.paths['/api/workflows/{workflowId}/execute'].post.security).toEqual([{ apiKey: [] }]);
  });
});

describe('single sign-on off', () => {
  it('refuses an ID token the provider issued, while the API key still works', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sso-off');
    const token = await provider.idTokenFor(tenant.email);

    // Act
    const [withIdToken, withKey, document] = await withSsoOff(async () => [
      await withToken(token, 'GET', '/api/workspaces'),
      await tenant.call('GET', '/api/workspaces'),
      (await request(service.get().url, 'GET', '/api/openapi.json')).body,
    ]);
    const onAgain = await withToken(token, 'GET', '/api/workspaces');

    // Assess
    expect(withIdToken.status).toBe(401);
    expect(withIdToken.body.error).toMatch(/Missing API key/);
    expect(withKey.status).toBe(200);
    expect(document.components.securitySchemes.idToken).toBeUndefined();
    expect(document.paths['/api/workspaces'].get.security).toEqual([{ apiKey: [] }]);
    expect(onAgain.status).toBe(200);
  });
});
