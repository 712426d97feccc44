import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { isServiceError } from '../../core/errors';
import { logger as rootLogger } from './logger';

export interface JsonResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, headers?: Record<string, string>): JsonResponse => ({
  statusCode: 200,
  body,
  headers,
});
export const created = (body: unknown): JsonResponse => ({ statusCode: 201, body });

export function toProxyResult(response: JsonResponse): APIGatewayProxyResult {
  return {
    statusCode: response.statusCode,
    headers: { 'content-type': 'application/json', ...response.headers },
    body: JSON.stringify(response.body ?? null),
  };
}

/** Errors below 500 are the caller's to see; anything else is a plain 500 with no internals. */
export function errorResponse(error: unknown, logger: Logger = rootLogger): JsonResponse {
  if (isServiceError(error) && error.statusCode < 500) {
    return {
      statusCode: error.statusCode,
      headers: error.headers,
      body: { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) },
    };
  }
  logger.error('Request failed', { error: error as Error });
  return { statusCode: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } };
}
