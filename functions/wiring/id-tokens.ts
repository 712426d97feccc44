/**
 * The ID token verifier, apart from the identity wiring: only the routes that take ID tokens
 * (functions/http/authorize.ts) carry it and the issuer's address policy it checks with.
 */
import { JoseIdTokenVerifier } from '../../adapters/oidc/id-token-verifier';
import type { IdTokenVerifier } from '../../core/identity/id-tokens';
import { setting } from '../settings';

let verifier: { key: string; verifier: IdTokenVerifier } | undefined;

/**
 * The verifier of the provider named by OIDC_ISSUER and OIDC_AUDIENCE, one per process so that its
 * discovery document and keys are fetched once; made anew only when the settings change (tests).
 */
export function idTokenVerifier(
  env: Record<string, string | undefined> = {
    OIDC_ISSUER: setting('OIDC_ISSUER'),
    OIDC_AUDIENCE: setting('OIDC_AUDIENCE'),
  },
): IdTokenVerifier {
  const issuer = env.OIDC_ISSUER?.trim();
  const audience = env.OIDC_AUDIENCE?.trim();
  if (!issuer || !audience) {
    throw new Error('SSO_ENABLED is on but OIDC_ISSUER or OIDC_AUDIENCE is not set');
  }
  const key = `${issuer}\n${audience}`;
  if (verifier?.key !== key) verifier = { key, verifier: new JoseIdTokenVerifier({ issuer, audience }) };
  return verifier.verifier;
}
