/**
 * The form pages' static site, as both the CloudFront distribution (lib/site-stack.ts) and the
 * local server (local/form-pages.ts) serve it: where the built app lives, and the headers of its
 * answers. Framing is allowed from anywhere (`frame-ancestors *`, no X-Frame-Options): forms are
 * meant to be embedded in other sites' pages.
 */

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
