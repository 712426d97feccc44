/**
 * Single sign-on in the CDK app: no user pool unless the deployment switches it on; with it, a
 * Cognito user pool federating SAML 2.0 (from metadata) and OIDC providers, one app client, and the
 * routes that take ID tokens given its issuer and client id; cdk-nag clean, each suppression argued.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { acceptsIdToken, type RouteDefinition, routes } from '../../catalog/routes';
import { ssoConfigOf } from '../../lib/sso-config';
import { logicalIdOf, ofType, type SynthesizedApp, synthesizeApp } from './app';

const allRoutes = routes as readonly RouteDefinition[];

const ssoContext = {
  ssoEnabled: 'true',
  ssoDomainPrefix: 'acme-workflows',
  ssoCallbackUrls: 'https://app.acme.example/callback, http://localhost:5173/callback',
  ssoSamlName: 'AcmeSaml',
  ssoSamlMetadataUrl: 'https://idp.acme.example/saml/metadata',
  ssoOidcName: 'AcmeOidc',
  ssoOidcIssuer: 'https://login.acme.example',
  ssoOidcClientId: 'cognito-federation',
  ssoOidcClientSecretName: 'acme/oidc-client-secret',
};

function variablesOf(synthesized: SynthesizedApp, route: RouteDefinition): Record<string, unknown> {
  const fn = synthesized.stacks.routes[route.tag].functions[route.id];
  const resource = synthesized.byStack(Stack.of(fn)).resources[logicalIdOf(fn.function)];
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

describe('single sign-on off (the default)', () => {
  const synthesized = synthesizeApp();

  it('has no user pool and gives no function the switch or a provider', () => {
    expect(synthesized.stacks.sso).toBeUndefined();
    for (const { resources } of synthesized.all) {
      expect(ofType(resources, 'AWS::Cognito::UserPool')).toEqual([]);
    }
    for (const route of allRoutes) {
      const names = Object.keys(variablesOf(synthesized, route));
      expect(names, route.id).not.toContain('SSO_ENABLED');
      expect(names, route.id).not.toContain('OIDC_ISSUER');
    }
  });
});

describe('single sign-on on', () => {
  const synthesized = synthesizeApp(ssoContext);
  const sso = synthesized.stacks.sso;
  if (!sso) throw new Error('The SSO stack is missing');
  const { resources, template } = synthesized.byStack(sso);

  it('has one user pool that takes no sign-ups, with a sign-in domain', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      DeletionProtection: 'ACTIVE',
    });
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-workflows' });
  });

  it('federates a SAML 2.0 provider from its metadata and an OIDC provider from its issuer, mapping e-mail', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolIdentityProvider', {
      ProviderName: 'AcmeSaml',
      ProviderType: 'SAML',
      ProviderDetails: Match.objectLike({ MetadataURL: 'https://idp.acme.example/saml/metadata' }),
      AttributeMapping: { email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress' },
    });
    const [[, oidc]] = ofType(resources, 'AWS::Cognito::UserPoolIdentityProvider').filter(
      ([, provider]) => provider.Properties.ProviderType === 'OIDC',
    );
    expect(oidc.Properties).toMatchObject({
      ProviderName: 'AcmeOidc',
      AttributeMapping: { email: 'email' },
      ProviderDetails: {
        oidc_issuer: 'https://login.acme.example',
        client_id: 'cognito-federation',
        authorize_scopes: 'openid email',
      },
    });
    // Resolved by CloudFormation at deploy time: the secret itself is never in the template.
    expect(
      JSON.stringify((oidc.Properties.ProviderDetails as Record<string, unknown>).client_secret),
    ).toContain('{{resolve:secretsmanager:acme/oidc-client-secret:SecretString:::}}');
  });

  it('has one public app client: code flow through those providers only, no passwords', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      // The providers' names, by reference, so the client is made after them.
      SupportedIdentityProviders: sso.providers.map((provider) => ({ Ref: logicalIdOf(provider) })),
      CallbackURLs: ['https://app.acme.example/callback', 'http://localhost:5173/callback'],
      ExplicitAuthFlows: Match.absent(),
      IdTokenValidity: 60,
    });
  });

  it("gives the routes that take ID tokens the switch, the pool's issuer and the client id; runs get nothing", () => {
    const issuerId = logicalIdOf(sso.userPool);
    const clientId = logicalIdOf(sso.client);
    const takers = allRoutes.filter(acceptsIdToken);
    expect(takers.map((route) => route.id)).toEqual(expect.arrayContaining(['listWorkspaces', 'listLogs']));
    for (const route of takers) {
      const variables = variablesOf(synthesized, route);
      expect(variables.SSO_ENABLED, route.id).toBe('true');
      // Values of the SSO stack, imported across stacks.
      expect(JSON.stringify(variables.OIDC_ISSUER), route.id).toContain(issuerId);
      expect(JSON.stringify(variables.OIDC_AUDIENCE), route.id).toContain(clientId);
    }
    for (const id of ['executeWorkflow', 'runWorkflow', 'adminCreateUser', 'submitForm']) {
      const names = Object.keys(
        variablesOf(synthesized, allRoutes.find((route) => route.id === id) as RouteDefinition),
      );
      expect(names, id).not.toContain('SSO_ENABLED');
      expect(names, id).not.toContain('OIDC_ISSUER');
    }
    const openApi = variablesOf(
      synthesized,
      allRoutes.find((route) => route.id === 'getOpenApi') as RouteDefinition,
    );
    expect(openApi.SSO_ENABLED).toBe('true');
  });

  // Reading a stack's annotations runs the checks over the whole app (the site's console included).
  it('passes cdk-nag AwsSolutions, suppressing only COG2 and COG3 with their reasons', {
    timeout: 180_000,
  }, () => {
    const errors = Annotations.fromStack(sso).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((error) => String(error.entry.data).split(':')[0])).toEqual([]);
    const suppressed = Object.values(resources).flatMap(
      (resource) =>
        (resource.Metadata?.cdk_nag as { rules_to_suppress?: { id: string; reason: string }[] } | undefined)
          ?.rules_to_suppress ?? [],
    );
    expect(suppressed.map((suppression) => suppression.id).sort()).toEqual([
      'AwsSolutions-COG2',
      'AwsSolutions-COG3',
    ]);
    for (const suppression of suppressed) expect(suppression.reason.length).toBeGreaterThan(80);
  });

  it('outputs the issuer and client id for clients that sign people in', () => {
    const named = Object.keys(template.findOutputs('*')).filter((name) => !name.startsWith('ExportsOutput'));
    expect(named.sort()).toEqual(['OidcAudience', 'OidcIssuer', 'SignInDomain']);
    // The issuer as Cognito writes it in `iss`: https://cognito-idp.<region>.amazonaws.com/<pool id>
    template.hasOutput('OidcIssuer', {
      Value: {
        'Fn::Join': [
          '',
          [
            'https://cognito-idp.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
            { Ref: logicalIdOf(sso.userPool) },
          ],
        ],
      },
    });
    template.hasOutput('OidcAudience', { Value: { Ref: logicalIdOf(sso.client) } });
  });

  it('exports the pool and client ids whether or not a route imports them, so the last one can go', () => {
    // Prepare
    const exported = Object.values(template.findOutputs('*'))
      .filter((output) => output.Export)
      .map((output) => output.Value);

    // Assess: removing the last route that takes ID tokens must not delete an export its stack,
    // updated after this one, still imports (docs/operating.md, adding and removing routes).
    expect(exported).toEqual(
      expect.arrayContaining([{ Ref: logicalIdOf(sso.userPool) }, { Ref: logicalIdOf(sso.client) }]),
    );
  });
});

describe('single sign-on settings', () => {
  const configOf = (context: Record<string, unknown>) =>
    ssoConfigOf(new App({ context, autoSynth: false }).node);

  it('reads SAML metadata from a file at synthesis', () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'sso-metadata-'));
    const file = join(dir, 'idp.xml');
    writeFileSync(file, '<EntityDescriptor entityID="https://idp.acme.example"/>');
    try {
      // Act
      const config = configOf({
        ssoEnabled: true,
        ssoDomainPrefix: 'acme',
        ssoCallbackUrls: 'https://app.acme.example/callback',
        ssoSamlMetadataFile: file,
      });

      // Assess
      expect(config?.saml).toEqual({
        name: 'Saml',
        metadata: { xml: '<EntityDescriptor entityID="https://idp.acme.example"/>' },
        emailAttribute: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
      });
      expect(config?.oidc).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is off unless ssoEnabled says on', () => {
    expect(configOf({})).toBeUndefined();
    expect(
      configOf({ ssoEnabled: 'false', ssoSamlMetadataUrl: 'https://idp.acme.example/m' }),
    ).toBeUndefined();
  });

  it('names what is missing', () => {
    const base = {
      ssoEnabled: 'true',
      ssoDomainPrefix: 'acme',
      ssoCallbackUrls: 'https://app.acme.example/cb',
    };
    expect(() => configOf(base)).toThrow(/no identity provider is: give ssoSamlMetadataUrl/);
    expect(() => configOf({ ...base, ssoOidcIssuer: 'https://login.acme.example' })).toThrow(
      /context ssoOidcClientId is required/,
    );
    expect(() =>
      configOf({ ...base, ssoSamlMetadataUrl: 'https://idp/m', ssoSamlMetadataFile: '/nowhere.xml' }),
    ).toThrow(/not both/);
    expect(() => configOf({ ...base, ssoCallbackUrls: '', ssoSamlMetadataUrl: 'https://idp/m' })).toThrow(
      /context ssoCallbackUrls is required/,
    );
    expect(() => configOf({ ...base, ssoSamlMetadataFile: '/nowhere/idp.xml' })).toThrow(
      /ssoSamlMetadataFile: cannot read/,
    );
  });
});
