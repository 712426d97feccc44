import { timingSafeEqual, createHash } from 'node:crypto';
import { secretStringOf } from '../../adapters/secrets/secret-string';
import { UnauthorizedError } from '../../core/errors';
import { optionalEnv } from '../../adapters/aws/require-env';

let expected: Promise<string> | undefined;

/** In AWS the key lives in Secrets Manager; locally `ADMIN_API_KEY` is set by the local server. */
function expectedAdminKey(): Promise<string> {
  expected ??= (async () => {
    const localKey = optionalEnv('ADMIN_API_KEY');
    if (localKey) return localKey;
    const secretId = optionalEnv('ADMIN_API_KEY_SECRET_ARN');
    if (!secretId) throw new Error('Neither ADMIN_API_KEY nor ADMIN_API_KEY_SECRET_ARN is set');
    return secretStringOf(secretId);
  })();
  expected.catch(() => {
    expected = undefined;
  });
  return expected;
}

/** Compares digests, so the comparison takes the same time whatever the length of the guess. */
export function sameKey(given: string, wanted: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(wanted));
}

export async function requireAdminKey(given: string | undefined): Promise<void> {
  if (!given) throw new UnauthorizedError('Missing admin key: send it in the x-admin-key header');
  if (!sameKey(given, await expectedAdminKey())) throw new UnauthorizedError('Invalid admin key');
}

/** Tests and the local server change the key at run time. */
export function forgetAdminKey(): void {
  expected = undefined;
}
