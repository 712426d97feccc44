/**
 * The form pages' static site, as both the CloudFront distribution (lib/site-stack.ts) and the
 * local server (local/form-pages.ts) serve it: where the built app lives, and the headers of its
 * answers. Framing is allowed from anywhere (`frame-ancestors *`, no X-Frame-Options): forms are
 * meant to be embedded in other sites' pages.
 */

/**
 * Behind the distribution, API Gateway sees an edge server's address, shared by many visitors.
 * CloudFront names the visitor in `CloudFront-Viewer-Address` and proves the request passed through
 * it by sending the edge secret in `x-svc-edge-secret` (functions/http/source-address.ts).
 */
export const edgeSecretHeader = 'x-svc-edge-secret';
export const viewerAddressHeader = 'CloudFront-Viewer-Address';
/** How the route functions receive the edge secret (AWS: resolved from Secrets Manager at deploy). */
export const edgeSecretEnvVar = 'EDGE_SECRET';

/** The path prefix of the pages and of the built app's files (`form/index.html`, `form/app-<hash>.js`). */
export const formPagePrefix = 'form';

export const formPageContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  'frame-ancestors *',
].join('; ');

export const formPageHeaders: Record<string, string> = {
  'content-security-policy': formPageContentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** An asset's name always has a dot (`app-3F2A1B.js`); an identifier never does. */
export function isFormAssetName(segment: string): boolean {
  return segment.includes('.');
}
