/** A Lambda context and an API Gateway proxy event for calling handlers directly in unit tests. */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export const lambdaContext = {
  functionName: 'test',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 1000,
} as unknown as Context;

export function proxyEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/',
    path: '/',
    httpMethod: 'POST',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}
