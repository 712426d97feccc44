/**
 * A stack of route functions: the Lambdas of the routes that share one `tag` of the route table (one
 * concern: workflows, workspaces, admin, ...). The functions live apart from the API stack because one
 * route costs four resources here (function, role, policy, log group) and two there (method and
 * invoke permission); with every concern in its own stack, no stack nears CloudFormation's
 * 500-resource limit as routes are added.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { type RouteDefinition, routeAccess } from '../catalog/routes';
import { edgeSecretEnvVar } from '../catalog/site';
import { ServiceFunction } from './constructs/service-function';
import { adminKeySecretEnvVar, type ServiceResources } from './service-resources';

export interface RouteFunctionsStackProps extends StackProps {
  readonly tag: string;
  readonly routes: readonly RouteDefinition[];
  readonly resources: ServiceResources;
  readonly adminKeySecret: secretsmanager.ISecret;
  /** Every route counts requests per source address, which behind the form site needs this secret. */
  readonly edgeSecret: secretsmanager.ISecret;
}

export class RouteFunctionsStack extends Stack {
  readonly functions: Record<string, ServiceFunction> = {};

  constructor(scope: Construct, id: string, props: RouteFunctionsStackProps) {
    super(scope, id, { description: `Workflow service: route functions (${props.tag})`, ...props });

    for (const route of props.routes) {
      const fn = new ServiceFunction(this, route.id, {
        entry: route.entry,
        description: `${route.method} ${route.path}: ${route.summary}`,
        access: routeAccess(route),
        resources: props.resources,
        memoryInMb: route.memoryInMb,
        timeoutInSeconds: route.timeoutInSeconds,
        runsBlocks: route.runsBlocks,
      });
      // Resolved by CloudFormation at deploy time: the function reads it without a call per cold start.
      fn.function.addEnvironment(edgeSecretEnvVar, props.edgeSecret.secretValue.unsafeUnwrap());
      if (route.auth === 'admin') {
        props.adminKeySecret.grantRead(fn.function);
        fn.function.addEnvironment(adminKeySecretEnvVar, props.adminKeySecret.secretArn);
      }
      this.functions[route.id] = fn;
    }
  }
}
