/**
 * The API stack: the REST API with its stage, the resource tree built from the route table's paths,
 * one method per route with a Lambda proxy integration to that route's own function (which lives in
 * a route functions stack, reached by its name, lib/route-functions-stack.ts), and the errors API
 * Gateway answers itself.
 */
import { ArnFormat, Duration, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../catalog/routes';

export const apiStageName = 'prod';
/**
 * Stage-wide throttling: a coarse guard for the account's Lambda concurrency in front of the per-user
 * token buckets that the handlers enforce (design §3). Raise it with the expected traffic.
 */
export const apiThrottling = { rateLimit: 500, burstLimit: 1000 };

export interface ApiRoute {
  readonly route: RouteDefinition;
  /** The physical name of the route's function, in a stack this one is deployed after. */
  readonly functionName: string;
}

export interface ApiStackProps extends StackProps {
  readonly routes: readonly ApiRoute[];
}

export class ApiStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly methods: Record<string, apigateway.Method> = {};

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, { description: 'Workflow service: REST API', ...props });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.THREE_MONTHS });

    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'Workflow service API',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Bodies a route reads itself (a ZIP archive) reach its function base64-encoded, byte for byte.
      binaryMediaTypes: [...new Set(props.routes.flatMap(({ route }) => route.rawBodyMediaTypes ?? []))],
      // Stage execution logging (errors only) needs API Gateway's account-level CloudWatch role.
      cloudWatchRole: true,
      deployOptions: {
        stageName: apiStageName,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        // Request and response bodies carry user data and keys: never log them.
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
        throttlingRateLimit: apiThrottling.rateLimit,
        throttlingBurstLimit: apiThrottling.burstLimit,
      },
    });

    // API Gateway checks that each route's path parameters are present; bodies are validated by the
    // handlers' zod schemas (the single source of truth), which also answer in the wire contract's
    // error format (INVALID_JSON vs VALIDATION_ERROR with details), which a gateway model could not.
    const validator = this.api.addRequestValidator('RequestValidator', {
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    this.addErrorResponses();

    for (const { route, functionName } of props.routes) {
      // The function is referenced by an ARN built from its name (no cross-stack export to pin it),
      // and its invoke permission is created here, next to the method it serves.
      const fn = lambda.Function.fromFunctionAttributes(this, `${route.id}Function`, {
        functionArn: this.formatArn({
          service: 'lambda',
          resource: 'function',
          resourceName: functionName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
        sameEnvironment: true,
      });
      const resource = this.api.root.resourceForPath(route.path);
      const pathParameters = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      this.methods[route.id] = resource.addMethod(
        route.method,
        // One permission per method, scoped to this method and path; no extra test-invoke permission.
        // A streaming route answers through Lambda response streaming, which also lifts the 29 s
        // integration limit up to the function's own time-out.
        new apigateway.LambdaIntegration(fn, {
          proxy: true,
          allowTestInvoke: false,
          ...(route.streaming
            ? {
                responseTransferMode: apigateway.ResponseTransferMode.STREAM,
                timeout: Duration.seconds(route.timeoutInSeconds ?? 29),
              }
            : {}),
        }),
        {
          operationName: route.id,
          authorizationType: apigateway.AuthorizationType.NONE,
          requestValidator: validator,
          requestParameters: Object.fromEntries(
            pathParameters.map((name) => [`method.request.path.${name}`, true]),
          ),
        },
      );
    }

    NagSuppressions.addResourceSuppressions(Object.values(this.methods), [
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'Authentication is part of the wire contract and is done in each handler: x-api-key (per-user keys ' +
          'stored only as hashes in DynamoDB, also driving per-user rate limits), with single sign-on an ID ' +
          'token of the user pool on the routes that take one, or x-admin-key (compared in ' +
          'constant time with the key in Secrets Manager); /api/health and /api/openapi.json are public by ' +
          'design. API Gateway API keys or IAM authorization cannot verify these keys.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'The API is called by programs with API keys (the public SDK sends x-api-key), which a Cognito ' +
          'authorizer would refuse. With single sign-on the handlers verify the user pool ID tokens themselves ' +
          '(signature, issuer, audience, expiry; functions/http/route.ts), so one route serves both; see ' +
          'AwsSolutions-APIG4 for how callers are authenticated.',
      },
    ]);
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      NagSuppressions.addResourceSuppressions(cloudWatchRole, [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            "API Gateway's account-level CloudWatch role uses AmazonAPIGatewayPushToCloudWatchLogs, the AWS " +
            'managed policy made for exactly this role; the stage execution logging (AwsSolutions-APIG6) needs it.',
          appliesTo: [
            'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
          ],
        },
      ]);
    }

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.url,
      description: 'Base URL of the stage; routes start with /api',
    });
  }

  /** Errors that API Gateway answers itself, in the service's error body `{error, code}`. */
  private addErrorResponses(): void {
    const json = (message: string, code: string) => ({
      'application/json': JSON.stringify({ error: message, code }),
    });
    const responses: [string, apigateway.ResponseType, string | undefined, Record<string, string>][] = [
      // An unknown path or method on a REST API is "Missing Authentication Token" (403) by default.
      [
        'NotFound',
        apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN,
        '404',
        json('No such route', 'NOT_FOUND'),
      ],
      [
        'Throttled',
        apigateway.ResponseType.THROTTLED,
        '429',
        json('Too many requests', 'RATE_LIMIT_EXCEEDED'),
      ],
      [
        'BadRequestParameters',
        apigateway.ResponseType.BAD_REQUEST_PARAMETERS,
        '400',
        json('Missing or invalid request parameters', 'VALIDATION_ERROR'),
      ],
      [
        'BadRequestBody',
        apigateway.ResponseType.BAD_REQUEST_BODY,
        '400',
        json('Invalid request body', 'VALIDATION_ERROR'),
      ],
      [
        'RequestTooLarge',
        apigateway.ResponseType.REQUEST_TOO_LARGE,
        '413',
        json('Request body too large', 'PAYLOAD_TOO_LARGE'),
      ],
      [
        'Timeout',
        apigateway.ResponseType.INTEGRATION_TIMEOUT,
        '408',
        json('The request timed out', 'TIMEOUT'),
      ],
      [
        'Default5xx',
        apigateway.ResponseType.DEFAULT_5XX,
        undefined,
        json('Internal error', 'INTERNAL_ERROR'),
      ],
      // Any other refusal of API Gateway's own (a WAF block, a denied resource policy): the same
      // body, with API Gateway's message (a JSON string already) and its response type as the code.
      [
        'Default4xx',
        apigateway.ResponseType.DEFAULT_4XX,
        undefined,
        {
          'application/json': '{"error":$context.error.messageString,"code":"$context.error.responseType"}',
        },
      ],
    ];
    for (const [id, type, statusCode, templates] of responses) {
      this.api.addGatewayResponse(id, {
        type,
        statusCode,
        templates,
        // As every answer of the functions (docs/api.md): no browser reads an error body as anything
        // but what its content type says.
        responseHeaders: {
          'X-Content-Type-Options': "'nosniff'",
          ...(type === apigateway.ResponseType.THROTTLED ? { 'Retry-After': "'1'" } : {}),
        },
      });
    }
  }
}
