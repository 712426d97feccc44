/**
 * The console in AWS: its build in the site bucket under `console/` (hashed files cached for a
 * year, the page and its config.json checked on every visit), served by the site's distribution at
 * `/console*` from the bucket (the API's own origin) with the console's strict CSP and no framing;
 * with SSO, config.json names the sign-in domain and app client, the CSP lets the page reach the
 * token endpoint, and the app client returns to the console after sign-in and sign-out.
 */
import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  consoleAssetCacheControl,
  consoleContentSecurityPolicy,
  consoleIndexCacheControl,
} from '../../console/site';
import { consolePathPattern, consoleRewriteCode } from '../../lib/constructs/console-site';
import { type CfnResource, logicalIdOf, ofType, statementsOfRole, synthesizeApp } from './app';

const ssoContext = {
  ssoEnabled: 'true',
  ssoDomainPrefix: 'acme-workflows',
  ssoCallbackUrls: 'https://app.acme.example/callback',
  ssoSamlName: 'AcmeSaml',
  ssoSamlMetadataUrl: 'https://idp.acme.example/saml/metadata',
};

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  AllowedMethods: string[];
  ViewerProtocolPolicy: string;
  CachePolicyId: string;
  ResponseHeadersPolicyId?: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}

function distributionOf(synthesized: ReturnType<typeof synthesizeApp>) {
  const { resources } = synthesized.byStack(synthesized.stacks.site);
  return resources[logicalIdOf(synthesized.stacks.site.distribution)].Properties.DistributionConfig as {
    DefaultCacheBehavior: Behavior;
    CacheBehaviors: Behavior[];
  };
}

/** The site's deployments that write under `console/`. */
function consoleDeployments(resources: Record<string, CfnResource>) {
  return ofType(resources, 'Custom::CDKBucketDeployment')
    .map(([, deployment]) => deployment.Properties)
    .filter((properties) => properties.DestinationBucketKeyPrefix === 'console/');
}

/** Runs the CloudFront Function's code as the edge would, on one request path. */
function rewrite(uri: string) {
  const handler = new Function(`${consoleRewriteCode}; return handler;`)() as (event: {
    request: { uri: string };
  }) => { uri?: string; statusCode?: number; headers?: Record<string, { value: string }> };
  return handler({ request: { uri } });
}

describe('the console without SSO', () => {
  const synthesized = synthesizeApp();
  const { stacks } = synthesized;
  const { template, resources } = synthesized.byStack(stacks.site);
  const distribution = distributionOf(synthesized);
  const behavior = distribution.CacheBehaviors.find(
    (candidate) => candidate.PathPattern === consolePathPattern,
  );

  it('serves /console* from the site bucket, the origin of the form pages, over HTTPS, GET and HEAD only', () => {
    expect(behavior).toBeDefined();
    expect(behavior?.TargetOriginId).toBe(distribution.DefaultCacheBehavior.TargetOriginId);
    expect(behavior?.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(behavior?.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(behavior?.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: expect.anything() },
    ]);
    // Matched before /api/* and the default: the distribution's other paths are not the console's.
    expect(distribution.CacheBehaviors.map((each) => each.PathPattern)).toContain('/api/*');
  });

  it('sends /console to /console/ and /console/ to the page, leaving the hashed files and config.json alone', () => {
    expect(rewrite('/console')).toMatchObject({
      statusCode: 301,
      headers: { location: { value: '/console/' } },
    });
    expect(rewrite('/console/')).toEqual({ uri: '/console/index.html' });
    expect(rewrite('/console/app-3F2A1B7C.js')).toEqual({ uri: '/console/app-3F2A1B7C.js' });
    expect(rewrite('/console/config.json')).toEqual({ uri: '/console/config.json' });
    template.hasResourceProperties('AWS::CloudFront::Function', { FunctionCode: consoleRewriteCode });
  });

  it("answers with the console's CSP, nosniff, X-Frame-Options DENY, no referrer and HSTS", () => {
    const policyId = logicalIdOf(stacks.site.console.headers);
    expect(JSON.stringify(behavior?.ResponseHeadersPolicyId)).toContain(policyId);
    const config = resources[policyId].Properties.ResponseHeadersPolicyConfig as {
      SecurityHeadersConfig: Record<string, Record<string, unknown>>;
    };
    expect(config.SecurityHeadersConfig).toMatchObject({
      ContentSecurityPolicy: { ContentSecurityPolicy: consoleContentSecurityPolicy, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      StrictTransportSecurity: {
        AccessControlMaxAgeSec: 31_536_000,
        IncludeSubdomains: true,
        Override: true,
      },
    });
    expect(consoleContentSecurityPolicy).toContain("frame-ancestors 'none'");
    expect(consoleContentSecurityPolicy).not.toContain('unsafe-inline');
  });

  it('deploys the hashed files for a year, then the page and config.json uncached, invalidating /console*', () => {
    const deployments = consoleDeployments(resources);
    expect(deployments).toHaveLength(2);
    const assets = deployments.find((properties) => properties.Prune !== false);
    const page = deployments.find((properties) => properties.Prune === false);
    expect(assets).toMatchObject({
      Exclude: ['index.html', 'config.json'],
      SystemMetadata: { 'cache-control': consoleAssetCacheControl },
    });
    expect(page).toMatchObject({
      Exclude: ['*'],
      Include: ['index.html', 'config.json'],
      SystemMetadata: { 'cache-control': consoleIndexCacheControl },
      DistributionPaths: [consolePathPattern],
    });
    // The build and config.json.
    expect(page?.SourceObjectKeys).toHaveLength(2);
  });

  it("leaves the console's files alone when the form page's deployment prunes the bucket", () => {
    const formAssets = ofType(resources, 'Custom::CDKBucketDeployment')
      .map(([, deployment]) => deployment.Properties)
      .find(
        (properties) => properties.DestinationBucketKeyPrefix === undefined && properties.Prune !== false,
      );
    expect(formAssets?.Exclude).toContain('console/*');
  });

  it('writes an empty config.json: the page asks for an API key', () => {
    expect(stacks.site.console.config).toEqual({});
  });

  it('names the console address in an output', () => {
    template.hasOutput('ConsoleUrl', {});
  });
});

describe('the console with SSO', () => {
  const synthesized = synthesizeApp(ssoContext);
  const { stacks } = synthesized;
  const sso = stacks.sso;
  if (!sso) throw new Error('The SSO stack is missing');
  const site = stacks.site;
  const { resources } = synthesized.byStack(site);
  const resolved = (value: unknown) => JSON.stringify(Stack.of(site).resolve(value));

  it('writes the sign-in domain and the app client id into config.json', () => {
    const config = site.console.config.sso;
    expect(resolved(config?.domain)).toContain('https://acme-workflows.auth.');
    expect(resolved(config?.domain)).toContain('amazoncognito.com');
    // The client id comes from the SSO stack, deployed first.
    expect(resolved(config?.clientId)).toContain('Fn::ImportValue');
    expect(config?.scopes).toEqual(['openid', 'email', 'profile']);
  });

  it('lets the page reach the sign-in domain (the token endpoint) and nothing else besides itself', () => {
    const policy = resources[logicalIdOf(site.console.headers)].Properties.ResponseHeadersPolicyConfig as {
      SecurityHeadersConfig: { ContentSecurityPolicy: { ContentSecurityPolicy: unknown } };
    };
    const csp = JSON.stringify(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("connect-src 'self' https://acme-workflows.auth.");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it("adds https://<distribution domain>/console/ to the app client's callback and logout URLs, keeping the others", () => {
    const [[, update]] = ofType(resources, 'Custom::AWS');
    const create = resolved(update.Properties.Create);
    const distributionId = logicalIdOf(site.distribution);
    for (const list of ['CallbackURLs', 'LogoutURLs']) expect(create).toContain(`\\"${list}\\":[`);
    expect(create).toContain('https://app.acme.example/callback');
    expect(create).toContain(distributionId);
    expect(create).toContain('/console/');
    expect(create).toContain('UpdateUserPoolClient');
    // The other settings as the SSO stack gives them: the code flow, its scopes, the providers.
    expect(create).toContain('\\"AllowedOAuthFlows\\":[\\"code\\"]');
    expect(create).toContain('AllowedOAuthFlowsUserPoolClient');
    expect(create).toContain('SupportedIdentityProviders');
    // On delete, the SSO stack's URLs alone.
    expect(resolved(update.Properties.Delete)).not.toContain(distributionId);
  });

  it('may update that one user pool client and nothing else', () => {
    const functions = ofType(resources, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(2);
    const cognitoStatements = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
            .Statement,
      )
      .filter((statement) => JSON.stringify(statement.Action).includes('cognito-idp'));
    expect(cognitoStatements).toHaveLength(1);
    expect(cognitoStatements[0]?.Action).toBe('cognito-idp:UpdateUserPoolClient');
    expect(JSON.stringify(cognitoStatements[0]?.Resource)).toContain('Fn::ImportValue');
    // CDK's AwsCustomResource function (the other is the deployments'): no wildcard resource.
    const [[, updater]] = functions.filter(([id]) => id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'));
    const roleId = (updater.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(JSON.stringify(statementsOfRole(resources, roleId))).not.toContain('"*"');
  });

  // Reading a stack's annotations runs the checks over the whole app: minutes on a busy small machine.
  it('passes cdk-nag AwsSolutions, each suppression argued', { timeout: 180_000 }, () => {
    const errors = Annotations.fromStack(site).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((error) => String(error.entry.data).split(':')[0])).toEqual([]);
    const suppressed = Object.values(resources).flatMap(
      (resource) =>
        (resource.Metadata?.cdk_nag as { rules_to_suppress?: { id: string; reason: string }[] } | undefined)
          ?.rules_to_suppress ?? [],
    );
    for (const suppression of suppressed) expect(suppression.reason.length).toBeGreaterThan(80);
  });
});
