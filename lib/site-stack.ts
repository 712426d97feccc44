/**
 * The site: the form page's and the console's static builds in a private S3 bucket behind a
 * CloudFront distribution that also fronts the REST API, so the pages and the API they call share
 * one origin.
 *
 *   /form/*      the app (a CloudFront Function sends `/form/<identifier>` to its index page)
 *   /console*    the console (lib/constructs/console-site.ts): never framed, a strict CSP
 *   /api/form/*  the form API, with the visitor's address (CloudFront-Viewer-Address) and the edge
 *                secret, so submissions are limited per visitor rather than per edge server
 *   /api/*       every other route, uncached, with all the caller's headers but Host
 *   /v1/logs/*   the log links of notification deliveries, as /api/*
 *
 * Framing is allowed from any site (forms are embedded in other sites' pages): the page's answers
 * carry `frame-ancestors *` and no X-Frame-Options.
 */
import { mkdirSync } from 'node:fs';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import {
  edgeSecretHeader,
  formPageContentSecurityPolicy,
  formPagePrefix,
  viewerAddressHeader,
} from '../catalog/site';
import { buildFormAppSync } from '../web/build';
import { ConsoleCallbackUrls } from './constructs/console-callback-urls';
import { ConsoleSite } from './constructs/console-site';
import { fromProjectRoot } from './project';
import type { SsoStack } from './sso-stack';

/** Where `cdk synth` builds the form page (the same build `npm run build:web` makes). */
export const formSiteBuildDir = fromProjectRoot('dist/web');

/**
 * How long CloudFront waits for the API's next bytes (the origin response, or read, timeout): 30 s
 * by default, at most 60 s without a CloudFront quota increase. A streamed run whose block is quiet
 * sends a `: keep-alive` comment at least every 15 s, so the stream outlives such blocks with room
 * to spare. The keep-alive timeout (idle pooled connections, 5 s) does not touch a busy stream.
 */
export const apiOriginReadTimeoutInSeconds = 60;

export interface SiteStackProps extends StackProps {
  readonly api: apigateway.RestApi;
  /** Sent by CloudFront to the API with every request, so the API can trust the viewer address. */
  readonly edgeSecret: secretsmanager.ISecret;
  /** Receives the distribution's access logs, under `site/`. */
  readonly accessLogsBucket: s3.IBucket;
  /** With single sign-on: the console signs in through its hosted UI and returns to the console. */
  readonly sso?: SsoStack;
}

/**
 * Runs at the edge for every `/form/*` request: a path with one segment and no dot is a form's
 * address and gets the app's index page; anything else (the app's hashed files) goes as it is.
 * CloudFront Functions run ES5.1-style JavaScript, hence `var` and no arrow functions.
 */
export const formPageRewriteCode = `function handler(event) {
  var request = event.request;
  var segments = request.uri.split('/');
  if (segments.length === 3 && segments[1] === '${formPagePrefix}' && segments[2] !== '' && segments[2].indexOf('.') === -1) {
    request.uri = '/${formPagePrefix}/index.html';
  }
  return request;
}`;

export class SiteStack extends Stack {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly console: ConsoleSite;
  /** `https://<distribution domain>/console/`. */
  readonly consoleUrl: string;

  constructor(scope: Construct, id: string, props: SiteStackProps) {
    super(scope, id, { description: 'Workflow service: form site (S3 + CloudFront)', ...props });

    this.bucket = new s3.Bucket(this, 'SiteBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'site-bucket/',
      // Only the build lives here (it is made again by every deploy), yet emptying it on delete would
      // take one more CDK-provided function: an operator empties it by hand when the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // CloudFront's standard logs are delivered with ACLs, which the shared access logs bucket
    // (bucket-owner-enforced) refuses: the distribution gets a log bucket of its own.
    const distributionLogs = new s3.Bucket(this, 'DistributionLogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    NagSuppressions.addResourceSuppressions(distributionLogs, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'This bucket receives the distribution access logs; logging it too would need yet another bucket ' +
          '(or log into itself, which loops). It is private, TLS-only and expires logs.',
      },
    ]);

    const appOrigin = origins.S3BucketOrigin.withOriginAccessControl(this.bucket);
    const apiOrigin = new origins.RestApiOrigin(props.api, {
      readTimeout: Duration.seconds(apiOriginReadTimeoutInSeconds),
      customHeaders: { [edgeSecretHeader]: props.edgeSecret.secretValue.unsafeUnwrap() },
    });

    const pageHeaders = new cloudfront.ResponseHeadersPolicy(this, 'FormPageHeaders', {
      comment: 'Form pages: a strict CSP that still lets any site embed the page',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: formPageContentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: {
          referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const pageBehavior: cloudfront.BehaviorOptions = {
      origin: appOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: pageHeaders,
      functionAssociations: [
        {
          eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
          function: new cloudfront.Function(this, 'FormPageRewrite', {
            comment: 'Serves the form app for /form/<identifier>',
            code: cloudfront.FunctionCode.fromInline(formPageRewriteCode),
            runtime: cloudfront.FunctionRuntime.JS_2_0,
          }),
        },
      ],
    };

    const formApiRequests = new cloudfront.OriginRequestPolicy(this, 'FormApiRequests', {
      comment: 'The form API: the body type and the visitor address, nothing else',
      headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(
        'Content-Type',
        'Accept',
        viewerAddressHeader,
      ),
      queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.none(),
      cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
    });
    const apiBehavior = (
      originRequestPolicy: cloudfront.IOriginRequestPolicy,
    ): cloudfront.BehaviorOptions => ({
      origin: apiOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy,
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Workflow service: form pages and API',
      defaultBehavior: pageBehavior,
      additionalBehaviors: {
        [`/${formPagePrefix}/*`]: pageBehavior,
        '/api/form/*': apiBehavior(formApiRequests),
        '/api/*': apiBehavior(cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER),
        // The links a notification's delivery carries (links.log, links.execution) are paths of the
        // API outside /api, so that they answer on the site's address too.
        '/v1/logs/*': apiBehavior(cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER),
      },
      minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: distributionLogs,
      logFilePrefix: 'site/',
    });
    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Forms are public by design and may be filled in from any country; no geo restriction applies.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Abuse is limited by the service itself: per-visitor and per-form submission limits, per-user rate ' +
          'limits, and the API stage throttle. A WAF web ACL (us-east-1, billed per rule) is left to operators ' +
          'who want one in front of these.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the ' +
          'viewer TLS policy; with a custom domain the TLSv1.2_2021 minimum set here applies.',
      },
    ]);

    mkdirSync(formSiteBuildDir, { recursive: true });
    buildFormAppSync(formSiteBuildDir);
    const build = s3deploy.Source.asset(formSiteBuildDir);
    // Both deployments share CDK's one handler function, so they share its log group too.
    const deploymentLogs = new logs.LogGroup(this, 'FormAppDeploymentLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // The hashed files never change, so browsers keep them; the index page is checked on every
    // load, so a new deploy reaches every visitor.
    const assets = new s3deploy.BucketDeployment(this, 'FormAppAssets', {
      sources: [build],
      destinationBucket: this.bucket,
      // The console's files are its own deployments' (lib/constructs/console-site.ts): not pruned here.
      exclude: [`${formPagePrefix}/index.html`, 'console/*'],
      cacheControl: [s3deploy.CacheControl.fromString('public, max-age=31536000, immutable')],
      memoryLimit: 256,
      logGroup: deploymentLogs,
    });
    new s3deploy.BucketDeployment(this, 'FormAppIndex', {
      sources: [build],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: [`${formPagePrefix}/index.html`],
      prune: false,
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [`/${formPagePrefix}/*`],
      memoryLimit: 256,
      logGroup: deploymentLogs,
    }).node.addDependency(assets);
    this.consoleUrl = `https://${this.distribution.distributionDomainName}/console/`;
    const { sso } = props;
    this.console = new ConsoleSite(this, 'Console', {
      bucket: this.bucket,
      distribution: this.distribution,
      origin: appOrigin,
      deploymentLogs,
      ...(sso
        ? {
            signIn: {
              domain: `https://${sso.domainPrefix}.auth.${this.region}.amazoncognito.com`,
              clientId: sso.client.userPoolClientId,
            },
          }
        : {}),
    });
    if (sso) {
      new ConsoleCallbackUrls(this, 'ConsoleCallbackUrls', { sso, consoleUrl: this.consoleUrl });
      this.suppressCallbackFindings();
    }
    this.suppressDeploymentFindings();

    new CfnOutput(this, 'SiteUrl', {
      value: `https://${this.distribution.distributionDomainName}`,
      description: 'Form pages: <this>/form/<identifier>; the API is also served here under /api',
    });
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.consoleUrl,
      description: 'The console (sign in with an API key, or with SSO when it is deployed)',
    });
  }

  /** The callback update runs in CDK's AwsCustomResource function, the stack's second with SSO. */
  private suppressCallbackFindings(): void {
    const handler = this.node.children.find((child) =>
      child.node.id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'),
    );
    if (!handler) throw new Error('The AwsCustomResource handler was not found');
    NagSuppressions.addResourceSuppressions(
      handler,
      [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            "CDK's AwsCustomResource function logs with AWSLambdaBasicExecutionRole, the AWS managed policy for " +
            'exactly that; it runs only while the stack deploys, to add the console to the sign-in URLs.',
          appliesTo: [
            'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
          ],
        },
        {
          id: 'AwsSolutions-L1',
          reason:
            "The AwsCustomResource function's runtime is chosen by aws-cdk-lib; it moves forward with the " +
            'library version.',
        },
      ],
      true,
    );
  }

  /** The BucketDeployment's handler is CDK's own function, the one function of this stack without SSO. */
  private suppressDeploymentFindings(): void {
    const handler = this.node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!handler) throw new Error('The BucketDeployment handler was not found');
    NagSuppressions.addResourceSuppressions(
      handler,
      [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            "CDK's own deployment handler logs with AWSLambdaBasicExecutionRole, the AWS managed policy for " +
            'exactly that; it runs only during deploys.',
          appliesTo: [
            'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
          ],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            "CDK's BucketDeployment copies every file of the build from the CDK asset bucket into the site " +
            'bucket (object wildcards on those two buckets only) and invalidates the distribution, an action ' +
            'that CloudFront does not scope to a resource.',
          appliesTo: [
            'Action::s3:GetBucket*',
            'Action::s3:GetObject*',
            'Action::s3:List*',
            'Action::s3:Abort*',
            'Action::s3:DeleteObject*',
            'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
            `Resource::<${this.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*`,
            'Resource::*',
          ],
        },
        {
          id: 'AwsSolutions-L1',
          reason:
            "The BucketDeployment handler's runtime is chosen by aws-cdk-lib (it bundles the AWS CLI for its " +
            'Python runtime); it moves forward with the library version.',
        },
      ],
      true,
    );
  }
}
