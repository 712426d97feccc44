/**
 * One Lambda function of the service (an API route or a worker), built the same way everywhere:
 * nodejs22.x on arm64, X-Ray active tracing, its own log group with a retention, its own role that
 * may write only to that log group, the shared esbuild options, and the catalog's resource access
 * turned into grants and environment variables.
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ResourceAccess } from '../../catalog/resources';
import { bundlingOf } from '../bundling';
import { modelEndpointEnvironment } from '../model-endpoints';
import { fromProjectRoot, projectRoot } from '../project';
import type { ServiceResources } from '../service-resources';
import { ResourceAccessGrant } from './resource-access';
import {
  defaultMemoryInMb,
  defaultTimeoutInSeconds,
  functionNodeOptions,
} from '../../catalog/function-defaults';

export { defaultMemoryInMb, defaultTimeoutInSeconds };

export const serviceName = 'workflow-service';
export const functionRuntime = lambda.Runtime.NODEJS_22_X;

export interface ServiceFunctionProps {
  /** Module relative to the project root whose `handler` export serves the function. */
  readonly entry: string;
  /** A physical name, for functions that another stack reaches by name (lib/route-functions-stack.ts). */
  readonly functionName?: string;
  readonly description: string;
  readonly access: ResourceAccess;
  readonly resources: ServiceResources;
  readonly memoryInMb?: number;
  readonly timeoutInSeconds?: number;
  /** Runs blocks: the parsers, provider SDKs and sandbox it loads on demand are installed beside the bundle. */
  readonly runsBlocks?: boolean;
  /** Takes ID tokens, single sign-on deployed: jose is installed beside the bundle. */
  readonly takesIdTokens?: boolean;
  /** Reads schedules' fire times without managing schedules: croner is installed beside the bundle. */
  readonly readsSchedules?: boolean;
  /** Makes outbound HTTP requests through the guard: ipaddr.js is installed beside the bundle. */
  readonly makesOutboundRequests?: boolean;
  /** Module bundled beside the handler's as `stream-run.js`, which the handler loads for streamed runs only. */
  readonly streamRunEntry?: string;
  readonly environment?: Record<string, string>;
  readonly logRetention?: logs.RetentionDays;
}

export class ServiceFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly access: ResourceAccessGrant;
  /**
   * NodejsFunction's bundling of this function: the packages it loads on demand are its nodeModules;
   * a second bundle it loads on demand is built by its afterBundling hook.
   */
  readonly bundling: nodejs.BundlingOptions;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });

    // An own role instead of the default one: the default attaches the AWS managed
    // AWSLambdaBasicExecutionRole (logs:* on every log group); this one may only write here.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}`,
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.bundling = bundlingOf(props);
    this.function = new nodejs.NodejsFunction(this, 'Handler', {
      entry: fromProjectRoot(props.entry),
      handler: 'handler',
      functionName: props.functionName,
      projectRoot,
      depsLockFilePath: fromProjectRoot('package-lock.json'),
      bundling: this.bundling,
      runtime: functionRuntime,
      architecture: lambda.Architecture.ARM_64,
      tracing: lambda.Tracing.ACTIVE,
      memorySize: props.memoryInMb ?? defaultMemoryInMb,
      timeout: Duration.seconds(props.timeoutInSeconds ?? defaultTimeoutInSeconds),
      logGroup: this.logGroup,
      role: this.role,
      description: props.description.slice(0, 256),
      environment: {
        POWERTOOLS_SERVICE_NAME: serviceName,
        NODE_OPTIONS: functionNodeOptions,
        // The deployment's model endpoints reach the functions whose blocks call models.
        ...(props.runsBlocks ? modelEndpointEnvironment(this.node) : {}),
        ...props.environment,
      },
    });

    this.access = new ResourceAccessGrant(this, 'Access', {
      function: this.function,
      access: props.access,
      resources: props.resources,
    });

    NagSuppressions.addResourceSuppressions(this.function, [
      {
        id: 'AwsSolutions-L1',
        reason:
          'The runtime is pinned to nodejs22.x on purpose: the bundles target node22 (lib/bundling.ts) and ' +
          'the local server and tests run the same code on Node 20/22; moving to a newer runtime is a ' +
          'deliberate upgrade of runtime, bundle target and tests together.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which do not ' +
            'support resource-level permissions, so their statement names Resource "*" (an infra test ' +
            'checks that no other action is granted on "*").',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
  }
}
