/**
 * The address a request came from, for the limits counted per source address. Behind the service's
 * own CloudFront distribution (the form site), API Gateway sees an edge server's address, shared
 * by many visitors; the distribution then names the visitor in `CloudFront-Viewer-Address` and
 * proves the request passed through it with the edge secret (`EDGE_SECRET`, sent by CloudFront as
 * `x-svc-edge-secret`). Without the secret that header is anybody's to forge, so it is ignored.
 */
import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { edgeSecretEnvVar, edgeSecretHeader, viewerAddressHeader } from '../../catalog/site';
import { optionalEnv } from '../../adapters/aws/require-env';

function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `192.0.2.1:46532` or `2001:db8::1:46532` (IPv6 without brackets): the address without its port. */
export function viewerAddressOf(header: string): string | undefined {
  const cut = header.trim().lastIndexOf(':');
  if (cut <= 0) return undefined;
  const address = header
    .trim()
    .slice(0, cut)
    .replace(/^\[|\]$/g, '');
  return /^[0-9a-fA-F.:]+$/.test(address) ? address.toLowerCase() : undefined;
}

export function sourceAddressOf(
  event: APIGatewayProxyEvent,
  edgeSecret: string | undefined = optionalEnv(edgeSecretEnvVar),
): string {
  const direct = event.requestContext?.identity?.sourceIp || 'unknown';
  if (!edgeSecret) return direct;
  const given = headerOf(event, edgeSecretHeader);
  const viewer = headerOf(event, viewerAddressHeader.toLowerCase());
  if (!given || !viewer || !sameSecret(given, edgeSecret)) return direct;
  return viewerAddressOf(viewer) ?? direct;
}
