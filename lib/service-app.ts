/**
 * The whole CDK app: the stacks by concern and the cdk-nag checks. `bin/app.ts` and the infra tests
 * both build the app through `createServiceApp`, so the tests check what `cdk synth` produces.
 *
 *   WorkflowData          tables, files bucket (+ access logs bucket), queues + DLQs, admin key secret
 *   WorkflowExecution     step and finalize workers, Express and Standard state machines
 *   WorkflowRoutes<Tag>   the route functions of one route-table tag (one stack per tag)
 *   WorkflowApi           REST API, stage, resources, methods, invoke permissions; names the route
 *                         functions (no exports) and is deployed after every route stack
 *   WorkflowSite          form pages and the console: site bucket, CloudFront distribution (/form/* app,
 *                         /console* console, /api/* API)
 *   WorkflowSso           with single sign-on only: Cognito user pool, identity providers, app client
 */
import { type App, Aspects, type StackProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type RouteDefinition, routes } from '../catalog/routes';
import { ApiStack } from './api-stack';
import { DataStack, pascal } from './data-stack';
import { ExecutionStack } from './execution-stack';
import { RouteFunctionsStack, routeFunctionName } from './route-functions-stack';
import { SiteStack } from './site-stack';
import { ssoConfigOf } from './sso-config';
import { SsoStack } from './sso-stack';

export const stackNames = {
  data: 'WorkflowData',
  execution: 'WorkflowExecution',
  api: 'WorkflowApi',
  site: 'WorkflowSite',
  sso: 'WorkflowSso',
  routes: (tag: string) =>
    `WorkflowRoutes${tag
      .split(/[^a-zA-Z0-9]+/)
      .map(pascal)
      .join('')}`,
};

export interface ServiceStacks {
  data: DataStack;
  execution: ExecutionStack;
  routes: Record<string, RouteFunctionsStack>;
  api: ApiStack;
  site: SiteStack;
  /** Present when the deployment switches single sign-on on (lib/sso-config.ts). */
  sso?: SsoStack;
}

export interface ServiceAppOptions {
  /** The route table to deploy; the catalog's. The layout test passes it with a route removed or moved. */
  readonly routes?: readonly RouteDefinition[];
  /** cdk-nag's AwsSolutions checks (on unless a test that reads no annotations turns them off). */
  readonly checks?: boolean;
}

/**
 * Adds the service's stacks to `app`. No `env`: the stacks are environment-agnostic, so they
 * synthesize without credentials and deploy to whatever account and region the CLI is pointed at.
 */
export function createServiceApp(
  app: App,
  props: StackProps = {},
  options: ServiceAppOptions = {},
): ServiceStacks {
  const serviceRoutes = options.routes ?? (routes as readonly RouteDefinition[]);
  const data = new DataStack(app, stackNames.data, props);
  const execution = new ExecutionStack(app, stackNames.execution, {
    ...props,
    resources: data.resources,
    deadLetterQueues: data.deadLetterQueues,
  });
  const resources = { ...data.resources, stateMachines: execution.stateMachines };
  const ssoConfig = ssoConfigOf(app.node);
  const sso = ssoConfig && new SsoStack(app, stackNames.sso, { ...props, config: ssoConfig });

  const byTag = new Map<string, RouteDefinition[]>();
  for (const route of serviceRoutes) {
    byTag.set(route.tag, [...(byTag.get(route.tag) ?? []), route]);
  }
  const routeStacks: Record<string, RouteFunctionsStack> = {};
  for (const [tag, tagRoutes] of byTag) {
    routeStacks[tag] = new RouteFunctionsStack(app, stackNames.routes(tag), {
      ...props,
      tag,
      routes: tagRoutes,
      resources,
      adminKeySecret: data.adminKeySecret,
      edgeSecret: data.edgeSecret,
      idTokenIssuer: sso?.idTokenIssuer,
    });
  }

  const api = new ApiStack(app, stackNames.api, {
    ...props,
    routes: serviceRoutes.map((route) => ({
      route,
      functionName: routeFunctionName(routeStacks[route.tag].stackName, route.id),
    })),
  });
  // No reference ties the API to the functions (it names them), so the order is stated: a new
  // function exists before the method that calls it and the permission that lets it be called.
  for (const routeStack of Object.values(routeStacks)) api.addStackDependency(routeStack);

  const site = new SiteStack(app, stackNames.site, {
    ...props,
    api: api.api,
    edgeSecret: data.edgeSecret,
    accessLogsBucket: data.accessLogsBucket,
    ...(sso ? { sso } : {}),
  });

  if (options.checks ?? true) Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { data, execution, routes: routeStacks, api, site, ...(sso ? { sso } : {}) };
}
