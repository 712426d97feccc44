/**
 * The console's static site, as the CloudFront distribution (lib/) and the local server
 * (local/console-pages.ts) serve it: where the built page lives, and the headers of its answers.
 * The page is served from the API's own origin, so it needs no CORS and calls only `'self'`; it
 * must never be framed (it holds an operator's key), unlike the form pages.
 */

/** The path prefix of the page and of its files (`console/index.html`, `console/app-<hash>.js`). */
export const consolePrefix = 'console';

/** The deployment's settings beside index.html (SSO); absent locally, where the page asks for a key. */
export const consoleConfigFile = 'config.json';

const consoleCspDirectives = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/** The console's Content-Security-Policy: no inline script or style, nothing from another origin. */
export const consoleContentSecurityPolicy = consoleCspDirectives.join('; ');

/**
 * The policy with more origins the page may call: with SSO, the page exchanges its authorization
 * code at the Cognito domain's token endpoint (`https://<domain>.auth.<region>.amazoncognito.com`).
 */
export function consoleContentSecurityPolicyWith(connectOrigins: readonly string[]): string {
  return consoleCspDirectives
    .map((directive) =>
      directive.startsWith('connect-src ') && connectOrigins.length > 0
        ? `${directive} ${connectOrigins.join(' ')}`
        : directive,
    )
    .join('; ');
}

export const consolePageHeaders: Record<string, string> = {
  'content-security-policy': consoleContentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** index.html and config.json are read again on every visit; the hashed files never change. */
export const consoleIndexCacheControl = 'no-cache';
export const consoleAssetCacheControl = 'public, max-age=31536000, immutable';

/** A hashed asset's name: `app-3F2A1B7C.js`, `style-9D0E11AA.css`. */
export function isConsoleAssetName(segment: string): boolean {
  return /^[\w-]+-[A-Z0-9]{8}\.(js|css)$/.test(segment);
}
