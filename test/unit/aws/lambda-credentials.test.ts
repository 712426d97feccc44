import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  credentialsTreatedAsExpired,
  defaultProvider,
  LambdaCredentialsError,
} from '../../../adapters/aws/lambda-credentials';

describe('lambda credentials', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.useRealTimers();
  });

  it('gives the credentials the Lambda runtime sets in the environment, session token included', async () => {
    // Prepare
    vi.stubEnv('AWS_PROFILE', '');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'token');

    // Act
    const credentials = await defaultProvider()();

    // Assess
    expect(credentials).toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
  });

  it('names the variables it reads when they are missing', async () => {
    // Prepare
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');

    // Act
    const failure = defaultProvider()();

    // Assess
    await expect(failure).rejects.toBeInstanceOf(LambdaCredentialsError);
    await expect(failure).rejects.toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  });

  it('treats credentials as expired five minutes before their expiry, and never those without one', () => {
    // Prepare
    vi.useFakeTimers({ now: new Date('2026-01-01T12:00:00Z') });
    const expiring = (at: string) => ({ accessKeyId: 'a', secretAccessKey: 's', expiration: new Date(at) });

    // Act + Assess
    expect(credentialsTreatedAsExpired(expiring('2026-01-01T12:04:59Z'))).toBe(true);
    expect(credentialsTreatedAsExpired(expiring('2026-01-01T12:05:01Z'))).toBe(false);
    expect(credentialsTreatedAsExpired({ accessKeyId: 'a', secretAccessKey: 's' })).toBe(false);
  });
});
