/**
 * A stack of route functions: the Lambdas of the routes that share one `tag` of the route table (one
 * concern: workflows, workspaces, admin, ...). The functions live apart from the API stack because one
 * route costs four resources here (function, role, policy, log group) and two there (method and
 * invoke permission); with every concern in its own stack, no stack nears CloudFormation's
 * 500-resource limit as routes are added.
 *
 * Each function has a physical name made of its stack's and its route's (`routeFunctionName`), and
 * the API stack reaches it by that name, not by a cross-stack export: an export that another stack
 * imports cannot be deleted, so with exports a route could not be removed or moved to another tag
 * in one deploy (CloudFormation refuses to delete the export while the API stack still imports it).
 */
import { createHash } from 'node:crypto';
import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { acceptsIdToken, type RouteDefinition, routeAccess } from '../catalog/routes';
import { edgeSecretEnvVar } from '../catalog/site';
import { ServiceFunction } from './constructs/service-function';
import { adminKeySecretEnvVar, type ServiceResources } from './service-resources';
import type { IdTokenIssuer } from './sso-stack';

export interface RouteFunctionsStackProps extends StackProps {
  readonly tag: string;
  readonly routes: readonly RouteDefinition[];
  readonly resources: ServiceResources;
  readonly adminKeySecret: secretsmanager.ISecret;
  /** Every route counts requests per source address, which behind the form site needs this secret. */
  readonly edgeSecret: secretsmanager.ISecret;
  /** With single sign-on: the user pool whose ID tokens the routes that take one accept. */
  readonly idTokenIssuer?: IdTokenIssuer;
}

export class RouteFunctionsStack extends Stack {
  readonly functions: Record<string, ServiceFunction> = {};

  constructor(scope: Construct, id: string, props: RouteFunctionsStackProps) {
    super(scope, id, { description: `Workflow service: route functions (${props.tag})`, ...props });

    for (const route of props.routes) {
      const fn = new ServiceFunction(this, route.id, {
        entry: route.entry,
        functionName: routeFunctionName(this.stackName, route.id),
        description: `${route.method} ${route.path}: ${route.summary}`,
        access: routeAccess(route),
        resources: props.resources,
        memoryInMb: route.memoryInMb,
        timeoutInSeconds: route.timeoutInSeconds,
        runsBlocks: route.runsBlocks,
        readsSchedules: route.readsSchedules,
        makesOutboundRequests: route.makesOutboundRequests,
        streamRunEntry: route.streamRunEntry,
        takesIdTokens: props.idTokenIssuer !== undefined && acceptsIdToken(route),
      });
      // Resolved by CloudFormation at deploy time: the function reads it without a call per cold start.
      fn.function.addEnvironment(edgeSecretEnvVar, props.edgeSecret.secretValue.unsafeUnwrap());
      if (route.auth === 'admin') {
        props.adminKeySecret.grantRead(fn.function);
        fn.function.addEnvironment(adminKeySecretEnvVar, props.adminKeySecret.secretArn);
      }
      if (props.idTokenIssuer) withSingleSignOn(fn, route, props.idTokenIssuer);
      this.functions[route.id] = fn;
    }
  }
}

/** Lambda's limit on a function name's length. */
export const functionNameMaxLength = 64;

/**
 * The physical name of a route's function: its stack's name and the route id, so that a route moved
 * to another tag gets a new function (created before the old one is deleted, with no name clash).
 * A name over Lambda's 64 characters keeps its start and ends in a hash of the whole.
 */
export function routeFunctionName(stackName: string, routeId: string): string {
  const name = `${stackName}-${routeId}`;
  if (name.length <= functionNameMaxLength) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, functionNameMaxLength - hash.length - 1)}-${hash}`;
}

/** The switch, and the provider for the routes that take its tokens; the OpenAPI route describes them. */
function withSingleSignOn(fn: ServiceFunction, route: RouteDefinition, issuer: IdTokenIssuer): void {
  if (acceptsIdToken(route)) {
    fn.function.addEnvironment('OIDC_ISSUER', issuer.issuer);
    fn.function.addEnvironment('OIDC_AUDIENCE', issuer.audience);
  }
  if (acceptsIdToken(route) || route.id === 'getOpenApi') fn.function.addEnvironment('SSO_ENABLED', 'true');
}
