/**
 * The jose verifier against a real OpenID provider on 127.0.0.1: tokens the provider issues pass;
 * tokens that differ from one in a single respect (signed by another key, another issuer, another
 * audience, past their expiry, unsigned) are refused with a 401 that says which.
 */
import { type CryptoKey, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JoseIdTokenVerifier } from '../../../adapters/oidc/id-token-verifier';
import { UnauthorizedError } from '../../../core/errors';
import { startOidcProvider, type TestOidcProvider } from '../../support/oidc-provider';

let provider: TestOidcProvider;

beforeAll(async () => {
  provider = await startOidcProvider();
});

afterAll(async () => {
  await provider.stop();
});

const issuedAtInSeconds = 1_900_000_000;
const at = (seconds: number) => () => new Date(seconds * 1000);

function verifierAt(
  now = at(issuedAtInSeconds + 60),
  overrides: { issuer?: string; audience?: string } = {},
) {
  return new JoseIdTokenVerifier({
    issuer: overrides.issuer ?? provider.issuer,
    audience: overrides.audience ?? provider.clientId,
    clockToleranceInSeconds: 30,
    now,
  });
}

/** A token like the provider's: its key, its issuer, the test client, valid for an hour from issuedAtInSeconds. */
async function minted(
  claims: JWTPayload = {},
  options: { key?: CryptoKey | Uint8Array; kid?: string; alg?: string } = {},
): Promise<string> {
  return new SignJWT({
    iss: provider.issuer,
    aud: provider.clientId,
    sub: 'subject-1',
    email: 'ada@example.com',
    iat: issuedAtInSeconds,
    exp: issuedAtInSeconds + 3600,
    ...claims,
  })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? provider.signingKey.kid })
    .sign(options.key ?? provider.signingKey.privateKey);
}

async function refusal(verifier: JoseIdTokenVerifier, token: string): Promise<UnauthorizedError> {
  const error = await verifier.verify(token).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return error as UnauthorizedError;
}

describe('JoseIdTokenVerifier', () => {
  it('accepts an ID token the provider issued, found through discovery and its JWKS', async () => {
    // Prepare
    const token = await provider.idTokenFor('Grace@Example.com', { subject: 'grace' });
    const verifier = new JoseIdTokenVerifier({ issuer: provider.issuer, audience: provider.clientId });

    // Act
    const verified = await verifier.verify(token);

    // Assess
    expect(verified).toEqual({ subject: 'grace', email: 'Grace@Example.com' });
  });

  it('fetches the discovery document and the key set once for many tokens', async () => {
    // Prepare
    const verifier = verifierAt();
    const before = provider.requestedPaths.length;

    // Act
    for (const subject of ['a', 'b', 'c']) await verifier.verify(await minted({ sub: subject }));

    // Assess
    expect(provider.requestedPaths.slice(before)).toEqual(['/.well-known/openid-configuration', '/jwks']);
  });

  it('refuses a token signed by a key that is not in the provider JWKS', async () => {
    // Prepare: the same key id as the provider's, and a key id it never published
    const { privateKey } = await generateKeyPair('RS256');
    const verifier = verifierAt();

    // Act
    const sameKid = await refusal(verifier, await minted({}, { key: privateKey }));
    const otherKid = await refusal(verifier, await minted({}, { key: privateKey, kid: 'stranger' }));

    // Assess
    for (const error of [sameKid, otherKid]) {
      expect(error.statusCode).toBe(401);
      expect(error.message).toMatch(/signature does not verify/);
    }
  });

  it('refuses a token of another issuer', async () => {
    const error = await refusal(verifierAt(), await minted({ iss: 'https://idp.example.com' }));
    expect(error.message).toMatch(/not issued by the configured identity provider/);
  });

  it('refuses a token issued to another client (audience)', async () => {
    const error = await refusal(verifierAt(), await minted({ aud: 'some-other-client' }));
    expect(error.message).toMatch(/not issued for this service \(audience\)/);
  });

  it('refuses a token past its expiry, beyond the clock tolerance, and accepts it within', async () => {
    // Prepare
    const token = await minted({ exp: issuedAtInSeconds + 300 });

    // Act
    const within = await verifierAt(at(issuedAtInSeconds + 300 + 29)).verify(token);
    const error = await refusal(verifierAt(at(issuedAtInSeconds + 300 + 31)), token);

    // Assess
    expect(within.subject).toBe('subject-1');
    expect(error.message).toMatch(/has expired/);
  });

  it('refuses an unsigned token (alg: none)', async () => {
    // Prepare
    const unsigned = new UnsecuredJWT({
      iss: provider.issuer,
      aud: provider.clientId,
      sub: 'subject-1',
      email: 'ada@example.com',
      iat: issuedAtInSeconds,
      exp: issuedAtInSeconds + 3600,
    }).encode();
    expect(JSON.parse(Buffer.from(unsigned.split('.')[0], 'base64url').toString())).toEqual({ alg: 'none' });

    // Act
    const error = await refusal(verifierAt(), unsigned);

    // Assess
    expect(error.message).toMatch(/not signed with an allowed algorithm/);
  });

  it('refuses a token signed with a shared secret (HS256), whatever the secret', async () => {
    // Prepare: the client id is public, so it must not work as an HMAC key
    const secret = new TextEncoder().encode(provider.clientId.padEnd(32, '-'));

    // Act
    const error = await refusal(verifierAt(), await minted({}, { key: secret, alg: 'HS256' }));

    // Assess
    expect(error.message).toMatch(/not signed with an allowed algorithm/);
  });

  it('refuses a token with no subject, and text that is not a token', async () => {
    expect((await refusal(verifierAt(), await minted({ sub: undefined }))).message).toMatch(/sub/);
    expect((await refusal(verifierAt(), 'not-a-token')).message).toMatch(/not a valid ID token/);
  });

  it('fails as the service (not the caller) when the issuer configured is not what discovery names', async () => {
    // Prepare: the same provider, named with a trailing slash it does not use itself
    const verifier = verifierAt(undefined, { issuer: `${provider.issuer}/` });

    // Act
    const error = await verifier.verify(await minted()).catch((thrown: unknown) => thrown);

    // Assess
    expect(error).not.toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toMatch(/names issuer .* not OIDC_ISSUER/);
  });

  it('takes only https issuers, or plain http to a loopback address', () => {
    expect(() => new JoseIdTokenVerifier({ issuer: 'http://idp.example.com', audience: 'x' })).toThrow(
      /OIDC_ISSUER must be an https URL/,
    );
    expect(() => new JoseIdTokenVerifier({ issuer: 'https://idp.example.com', audience: '' })).toThrow(
      /OIDC_AUDIENCE is empty/,
    );
    expect(() => new JoseIdTokenVerifier({ issuer: 'http://[::1]:8080', audience: 'x' })).not.toThrow();
  });
});
