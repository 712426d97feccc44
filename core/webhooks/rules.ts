/** What a webhook path and secret may be. */

/** Safe in a URL without encoding, and never `.` or `..`, so no proxy or client rewrites it. */
export const WEBHOOK_PATH_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const MAX_WEBHOOK_PATH_LENGTH = 128;
export const webhookPathRule = 'Letters, digits, "-" and "_", starting with a letter or digit';

/** Short secrets are guessable offline from one signed call; long ones only cost space. */
export const MIN_WEBHOOK_SECRET_LENGTH = 8;
export const MAX_WEBHOOK_SECRET_LENGTH = 256;

export function isWebhookPath(path: string): boolean {
  return path.length <= MAX_WEBHOOK_PATH_LENGTH && WEBHOOK_PATH_PATTERN.test(path);
}
