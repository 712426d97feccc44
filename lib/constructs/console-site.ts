/**
 * The console in AWS: its build in the site bucket under `console/`, served by the site's
 * distribution at `/console/` (the API's own origin, so no CORS), with the console's strict CSP,
 * no framing and no referrer. `config.json` beside the page carries what it needs to sign in with
 * SSO; the hashed files are kept by browsers for a year, `index.html` and `config.json` are
 * checked on every visit.
 */
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildConsoleSync } from '../../console/build';
import {
  consoleAssetCacheControl,
  consoleConfigFile,
  consoleContentSecurityPolicy,
  consoleContentSecurityPolicyWith,
  consoleIndexCacheControl,
  consolePrefix,
} from '../../console/site';
import { fromProjectRoot } from '../project';

/** Where `cdk synth` builds the console: `dist/console/`, the same build `npm run build:console` makes. */
export const consoleBuildRoot = fromProjectRoot('dist');

/** The distribution's path patterns of the console: the page and its files, and `/console` itself. */
export const consolePathPattern = `/${consolePrefix}*`;

/**
 * Runs at the edge for every `/console*` request: `/console` is sent to `/console/` (so the page's
 * relative `config.json` resolves under it), and `/console/` gets the page. The rest (hashed files,
 * config.json) goes as it is. ES5.1-style JavaScript, as CloudFront Functions run it.
 */
export const consoleRewriteCode = `function handler(event) {
  var request = event.request;
  if (request.uri === '/${consolePrefix}') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/${consolePrefix}/' } } };
  }
  if (request.uri === '/${consolePrefix}/') request.uri = '/${consolePrefix}/index.html';
  return request;
}`;

/** What the page needs to sign in through the Cognito hosted UI (console/src/sso.ts reads it). */
export interface ConsoleSignIn {
  /** `https://<prefix>.auth.<region>.amazoncognito.com`. */
  domain: string;
  clientId: string;
}

export interface ConsoleSiteProps {
  bucket: s3.IBucket;
  distribution: cloudfront.Distribution;
  origin: cloudfront.IOrigin;
  /** The log group of the site's deployments (they share CDK's one handler function). */
  deploymentLogs: logs.ILogGroup;
  /** With SSO deployed: written to config.json, and the sign-in domain is added to connect-src. */
  signIn?: ConsoleSignIn;
}

export class ConsoleSite extends Construct {
  readonly headers: cloudfront.ResponseHeadersPolicy;
  readonly config: { sso?: ConsoleSignIn & { scopes: string[] } };

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const { signIn } = props;

    this.headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: 'The console: a strict CSP, never framed, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: signIn
            ? consoleContentSecurityPolicyWith([signIn.domain])
            : consoleContentSecurityPolicy,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });

    props.distribution.addBehavior(consolePathPattern, props.origin, {
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      // Honours the files' own Cache-Control: no-cache for the page and its config, a year for the rest.
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.headers,
      functionAssociations: [
        {
          eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
          function: new cloudfront.Function(this, 'Rewrite', {
            comment: 'Serves the console page for /console/',
            code: cloudfront.FunctionCode.fromInline(consoleRewriteCode),
            runtime: cloudfront.FunctionRuntime.JS_2_0,
          }),
        },
      ],
    });

    this.config = signIn ? { sso: { ...signIn, scopes: ['openid', 'email', 'profile'] } } : {};
    buildConsoleSync(consoleBuildRoot);
    const build = s3deploy.Source.asset(join(consoleBuildRoot, consolePrefix));
    const common = {
      destinationBucket: props.bucket,
      destinationKeyPrefix: `${consolePrefix}/`,
      memoryLimit: 256,
      logGroup: props.deploymentLogs,
    };
    const assets = new s3deploy.BucketDeployment(this, 'Assets', {
      ...common,
      sources: [build],
      // The page and its config are the next deployment's, so this one's pruning leaves them alone.
      exclude: ['index.html', consoleConfigFile],
      cacheControl: [s3deploy.CacheControl.fromString(consoleAssetCacheControl)],
    });
    new s3deploy.BucketDeployment(this, 'Page', {
      ...common,
      sources: [build, s3deploy.Source.jsonData(consoleConfigFile, this.config)],
      exclude: ['*'],
      include: ['index.html', consoleConfigFile],
      prune: false,
      cacheControl: [s3deploy.CacheControl.fromString(consoleIndexCacheControl)],
      distribution: props.distribution,
      distributionPaths: [consolePathPattern],
    }).node.addDependency(assets);
  }
}
