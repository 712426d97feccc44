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

/**
 * The headers every answer of the API carries, after any of the answer's own: its body is JSON
 * whatever a workflow's response block says, and browsers are told not to guess otherwise.
 */
export const answerHeaders = {
  'content-type': 'application/json',
  'x-content-type-options': 'nosniff',
} as const;

export function toProxyResult(response: JsonResponse): APIGatewayProxyResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {}))
    if (!(name.toLowerCase() in answerHeaders)) headers[name] = value;
  return {
    statusCode: response.statusCode,
    headers: { ...headers, ...answerHeaders },
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
