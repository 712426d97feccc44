/**
 * The console's single sign-on in headless Chromium: the authorization code flow with PKCE against a
 * stand-in for the Cognito hosted UI (its /oauth2/authorize, /oauth2/token and /logout answered in
 * the browser, on the console's own origin), whose token is a real ID token of an OpenID provider on
 * 127.0.0.1 that the service checks (SSO_ENABLED, OIDC_ISSUER).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser';
import { consoleScreenshot, consoleUrlOf, namedWorkflow } from '../support/console';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { threeBlockGraph, useLocalService } from '../support/service';

let provider: TestOidcProvider;

// Registered before the service's own hook: the settings are checked when it starts.
beforeAll(async () => {
  provider = await startOidcProvider();
  process.env.SSO_ENABLED = 'true';
  process.env.OIDC_ISSUER = provider.issuer;
  process.env.OIDC_AUDIENCE = provider.clientId;
});

const service = useLocalService();
const browser = useBrowser();

afterAll(async () => {
  delete process.env.SSO_ENABLED;
  delete process.env.OIDC_ISSUER;
  delete process.env.OIDC_AUDIENCE;
  await provider?.stop();
});

const base64Url = (bytes: Buffer) =>
  bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

describe('console single sign-on', () => {
  it('signs in through the hosted UI with PKCE, calls the API with the ID token, and signs out there too', async () => {
    // Prepare
    const tenant = await service.get().newTenant('console-sso');
    await namedWorkflow(tenant, 'Federated', threeBlockGraph());
    const consoleUrl = consoleUrlOf(service.get().url);
    const origin = new URL(consoleUrl).origin;
    const idToken = await provider.idTokenFor(tenant.email);
    const page = await browser.page();
    const asked: { authorize?: URLSearchParams; token?: URLSearchParams; logout?: URLSearchParams } = {};
    const apiAuthorizations: string[] = [];
    await page.route(`${origin}/console/config.json`, (route) =>
      route.fulfill({ json: { sso: { domain: origin, clientId: 'console-client' } } }),
    );
    await page.route(`${origin}/oauth2/authorize?*`, (route) => {
      asked.authorize = new URL(route.request().url()).searchParams;
      const back = `${asked.authorize.get('redirect_uri')}?code=code-1&state=${asked.authorize.get('state')}`;
      return route.fulfill({ status: 302, headers: { location: back } });
    });
    await page.route(`${origin}/oauth2/token`, (route) => {
      asked.token = new URLSearchParams(route.request().postData() ?? '');
      return route.fulfill({
        json: { id_token: idToken, access_token: 'not-used', expires_in: 3600, token_type: 'Bearer' },
      });
    });
    await page.route(`${origin}/logout?*`, (route) => {
      asked.logout = new URL(route.request().url()).searchParams;
      return route.fulfill({ status: 302, headers: { location: asked.logout.get('logout_uri') ?? '/' } });
    });
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/'))
        apiAuthorizations.push(request.headers().authorization ?? '');
    });
    await page.goto(consoleUrl);

    // Act
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();

    // Assess: the code flow with PKCE, and the token on the API's calls
    await page.getByRole('link', { name: 'Federated' }).waitFor();
    expect(Object.fromEntries(asked.authorize ?? [])).toEqual({
      response_type: 'code',
      client_id: 'console-client',
      redirect_uri: `${origin}/console/`,
      scope: 'openid email',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.stringMatching(/^[\w-]{32}$/),
    });
    const verifier = asked.token?.get('code_verifier') ?? '';
    expect(base64Url(createHash('sha256').update(verifier).digest())).toBe(
      asked.authorize?.get('code_challenge'),
    );
    expect(Object.fromEntries(asked.token ?? [])).toEqual({
      grant_type: 'authorization_code',
      client_id: 'console-client',
      code: 'code-1',
      redirect_uri: `${origin}/console/`,
      code_verifier: verifier,
    });
    expect(page.url()).not.toContain('code-1');
    expect(apiAuthorizations.length).toBeGreaterThan(0);
    expect(new Set(apiAuthorizations)).toEqual(new Set([`Bearer ${idToken}`]));
    await consoleScreenshot(page, 'sso-signed-in');

    // Act
    await page.getByRole('button', { name: 'Sign out' }).click();

    // Assess
    await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
    expect(Object.fromEntries(asked.logout ?? [])).toEqual({
      client_id: 'console-client',
      logout_uri: `${origin}/console/`,
    });
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
  });
});
