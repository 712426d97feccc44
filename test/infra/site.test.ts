/**
 * The form site: a private bucket with the form app's build, a distribution whose behaviours send
 * `/form/*` to the app (through the rewrite function) and `/api/*` to the REST API with the edge
 * secret, headers that let any site embed the page, and the one deployment function it needs.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { formPageContentSecurityPolicy } from '../../catalog/site';
import { apiStageName } from '../../lib/api-stack';
import { apiOriginReadTimeoutInSeconds, formPageRewriteCode } from '../../lib/site-stack';
import { actionsOf, logicalIdOf, ofType, statementsOfRole, synthesizeApp } from './app';

const { stacks, byStack } = synthesizeApp();
const { template, resources } = byStack(stacks.site);
const distribution = resources[logicalIdOf(stacks.site.distribution)].Properties.DistributionConfig as {
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  Origins: Origin[];
  Logging?: unknown;
  HttpVersion: string;
};

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  AllowedMethods: string[];
  ViewerProtocolPolicy: string;
  CachePolicyId: string;
  OriginRequestPolicyId?: unknown;
  ResponseHeadersPolicyId?: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}
interface Origin {
  Id: string;
  DomainName: unknown;
  OriginPath?: unknown;
  S3OriginConfig?: unknown;
  OriginAccessControlId?: unknown;
  OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
  CustomOriginConfig?: {
    OriginProtocolPolicy: string;
    OriginReadTimeout?: number;
    OriginKeepaliveTimeout?: number;
  };
}

const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const allViewerExceptHost = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

function behavior(pattern: string): Behavior {
  const found = distribution.CacheBehaviors.find((candidate) => candidate.PathPattern === pattern);
  if (!found) throw new Error(`No behaviour for ${pattern}`);
  return found;
}
function originOf(target: Behavior): Origin {
  const found = distribution.Origins.find((origin) => origin.Id === target.TargetOriginId);
  if (!found) throw new Error(`No origin ${target.TargetOriginId}`);
  return found;
}
/** Runs the CloudFront Function's code as the edge would, on one request path. */
function rewrite(uri: string): string {
  const handler = new Function(`${formPageRewriteCode}; return handler;`)() as (event: {
    request: { uri: string };
  }) => { uri: string };
  return handler({ request: { uri } }).uri;
}

describe('form site stack', () => {
  it('keeps the build in a private, encrypted, TLS-only bucket with access logs', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({}),
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'site-bucket/' }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
  });

  it('lets only the distribution read the bucket, through origin access control', () => {
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const app = originOf(behavior('/form/*'));
    expect(app.OriginAccessControlId).toBeDefined();
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
          }),
        ]),
      }),
    });
  });

  it('serves /form/* from the bucket over HTTPS, GET and HEAD only, through the rewrite function', () => {
    for (const target of [behavior('/form/*'), distribution.DefaultCacheBehavior]) {
      expect(originOf(target).S3OriginConfig).toBeDefined();
      expect(target.ViewerProtocolPolicy).toBe('redirect-to-https');
      expect(target.AllowedMethods).toEqual(['GET', 'HEAD']);
      expect(target.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: expect.anything() },
      ]);
    }
  });

  it('rewrites a form address to the app page and leaves the app files alone', () => {
    expect(rewrite('/form/contact-us')).toBe('/form/index.html');
    expect(rewrite('/form/app-3F2A1B.js')).toBe('/form/app-3F2A1B.js');
    expect(rewrite('/form/')).toBe('/form/');
    expect(rewrite('/form/a/b')).toBe('/form/a/b');
    expect(rewrite('/api/form/contact-us')).toBe('/api/form/contact-us');
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: formPageRewriteCode,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
  });

  it('answers the pages with a CSP that allows framing from any site and no X-Frame-Options', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: formPageContentSecurityPolicy, Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: Match.absent(),
        }),
      }),
    });
    expect(formPageContentSecurityPolicy).toContain('frame-ancestors *');
    expect(behavior('/form/*').ResponseHeadersPolicyId).toBeDefined();
  });

  it('sends /api/* to the REST API stage, uncached, every method, with all headers but Host', () => {
    const api = behavior('/api/*');
    const origin = originOf(api);
    expect(origin.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
    expect(JSON.stringify(origin.DomainName)).toContain(stacks.api.stackName);
    // The stage's name, taken from the API stack's deployment stage.
    expect(JSON.stringify(origin.OriginPath)).toContain(`DeploymentStage${apiStageName}`);
    expect(api.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    expect(api.CachePolicyId).toBe(cachingDisabled);
    expect(api.OriginRequestPolicyId).toBe(allViewerExceptHost);
    expect(api.ViewerProtocolPolicy).toBe('https-only');
  });

  it("sends /v1/logs/*, the paths of a delivery's log links, to the API as /api/*", () => {
    // Prepare
    const api = behavior('/api/*');

    // Act
    const links = behavior('/v1/logs/*');

    // Assess
    expect(links.TargetOriginId).toBe(api.TargetOriginId);
    expect(links.AllowedMethods).toEqual(api.AllowedMethods);
    expect(links.CachePolicyId).toBe(cachingDisabled);
    expect(links.OriginRequestPolicyId).toBe(allViewerExceptHost);
    expect(links.ViewerProtocolPolicy).toBe('https-only');
  });

  it('waits 60 s for the API between bytes, so a streamed run with a quiet block keeps its stream', () => {
    // Prepare
    const api = originOf(behavior('/api/*'));

    // Act
    const config = api.CustomOriginConfig;

    // Assess: CloudFront's default of 30 s would cut a stream whose block is silent for 30 s; 60 s
    // is the most it allows without a quota increase, four times the 15 s keep-alive comments.
    expect(apiOriginReadTimeoutInSeconds).toBe(60);
    expect(config?.OriginReadTimeout).toBe(60);
    expect(originOf(behavior('/api/form/*')).CustomOriginConfig?.OriginReadTimeout).toBe(60);
  });

  it('sends /api/form/* with the visitor address, matched before /api/*', () => {
    const patterns = distribution.CacheBehaviors.map((candidate) => candidate.PathPattern);
    expect(patterns.indexOf('/api/form/*')).toBeLessThan(patterns.indexOf('/api/*'));
    const form = behavior('/api/form/*');
    expect(form.TargetOriginId).toBe(behavior('/api/*').TargetOriginId);
    expect(form.CachePolicyId).toBe(cachingDisabled);
    template.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
      OriginRequestPolicyConfig: Match.objectLike({
        HeadersConfig: {
          HeaderBehavior: 'whitelist',
          Headers: ['Content-Type', 'Accept', 'CloudFront-Viewer-Address'],
        },
        CookiesConfig: { CookieBehavior: 'none' },
      }),
    });
  });

  it('proves to the API that requests came through it with the edge secret, never written in the template', () => {
    const headers = originOf(behavior('/api/*')).OriginCustomHeaders ?? [];
    expect(headers.map((header) => header.HeaderName)).toEqual(['x-svc-edge-secret']);
    const value = JSON.stringify(headers[0].HeaderValue);
    expect(value).toContain('{{resolve:secretsmanager:');
    expect(value).toContain(stacks.data.stackName);
    // The route functions get the same secret, resolved the same way.
    const route = Object.values(stacks.routes)[0];
    const fn = Object.values(route.functions)[0];
    const routeResources = byStack(route).resources;
    const variables = (
      routeResources[logicalIdOf(fn.function)].Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(JSON.stringify(variables.EDGE_SECRET)).toContain('{{resolve:secretsmanager:');
  });

  it('logs requests, speaks HTTP/2 and 3, and names its address in an output', () => {
    expect(distribution.Logging).toMatchObject({ Prefix: 'site/' });
    expect(distribution.HttpVersion).toBe('http2and3');
    template.hasOutput('SiteUrl', {});
  });

  it('deploys the build with one CDK handler that may write only to the site bucket and invalidate the distribution', () => {
    const functions = ofType(resources, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(1);
    // The form page's files and page, the console's files and page (test/infra/console.test.ts).
    template.resourceCountIs('Custom::CDKBucketDeployment', 4);
    const roleId = (functions[0][1].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = statementsOfRole(resources, roleId);
    expect(actionsOf(statements)).toContain('cloudfront:CreateInvalidation');
    expect(actionsOf(statements)).not.toContain('s3:*');
    const siteBucketId = logicalIdOf(stacks.site.bucket);
    const writes = statements.filter((statement) =>
      actionsOf([statement]).some((action) => action.startsWith('s3:Put')),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const statement of writes) expect(JSON.stringify(statement.Resource)).toContain(siteBucketId);
  });
});
