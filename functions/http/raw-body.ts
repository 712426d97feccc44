import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The request body's bytes as sent: API Gateway hands binary media types over base64-encoded. */
export function bodyBytesOf(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): Buffer {
  return Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
}
