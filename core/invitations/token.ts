/**
 * Invitation tokens: `<invitationId>.<expiresAt in Unix ms>.<HMAC-SHA256>`, signed with the
 * deployment's invitation secret. The signature makes a forged or altered token worthless without
 * a read of the store; expiry and single use are then checked against the stored invitation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors';

/** Port: the secret that signs tokens (Secrets Manager in AWS, a key file locally). */
export type TokenKeySource = () => Promise<Uint8Array>;

export interface TokenClaims {
  invitationId: string;
  expiresAt: Date;
}

function signature(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

export async function signInvitationToken(keyOf: TokenKeySource, claims: TokenClaims): Promise<string> {
  const text = `${claims.invitationId}.${claims.expiresAt.getTime()}`;
  return `${text}.${signature(await keyOf(), text)}`;
}

const invalid = (message: string) => new ValidationError(message, [{ path: 'token', message }]);

/**
 * The claims of a token this deployment signed and that has not expired at `now`; a 400 naming
 * `token` otherwise, with the same message for any token that is not ours so none can be probed.
 */
export async function verifyInvitationToken(
  keyOf: TokenKeySource,
  token: string,
  now: Date,
): Promise<TokenClaims> {
  const parts = token.trim().split('.');
  if (parts.length !== 3 || !/^\d{1,15}$/.test(parts[1])) throw invalid('The invitation token is not valid');
  const [invitationId, expiresAtMs, given] = parts;
  const expected = Buffer.from(signature(await keyOf(), `${invitationId}.${expiresAtMs}`));
  const received = Buffer.from(given);
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
    throw invalid('The invitation token is not valid');
  }
  const expiresAt = new Date(Number(expiresAtMs));
  if (expiresAt.getTime() <= now.getTime()) {
    throw invalid(`The invitation expired at ${expiresAt.toISOString()}; ask for a new one`);
  }
  return { invitationId, expiresAt };
}
