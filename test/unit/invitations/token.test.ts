import { describe, expect, it } from 'vitest';
import { signInvitationToken, verifyInvitationToken } from '../../../core/invitations/token';

const key = async () => new Uint8Array(32).fill(7);
const otherKey = async () => new Uint8Array(32).fill(8);
const issuedAt = new Date('2026-11-01T12:00:00.000Z');
const expiresAt = new Date('2026-11-08T12:00:00.000Z');

describe('invitation tokens', () => {
  it('verify before expiry and give back the invitation and its expiry', async () => {
    // Prepare
    const token = await signInvitationToken(key, { invitationId: 'inv_1', expiresAt });

    // Act
    const claims = await verifyInvitationToken(key, token, new Date(expiresAt.getTime() - 1));

    // Assess
    expect(claims).toEqual({ invitationId: 'inv_1', expiresAt });
  });

  it('are refused at and after expiry with a 400 naming token', async () => {
    // Prepare
    const token = await signInvitationToken(key, { invitationId: 'inv_1', expiresAt });

    // Act
    const refusal = verifyInvitationToken(key, token, expiresAt);

    // Assess
    await expect(refusal).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('expired'),
      details: [{ path: 'token', message: expect.any(String) }],
    });
  });

  it('are refused when the expiry or the id was altered', async () => {
    // Prepare
    const token = await signInvitationToken(key, { invitationId: 'inv_1', expiresAt });
    const [id, expiry, signature] = token.split('.');
    const later = `${id}.${Number(expiry) + 86_400_000}.${signature}`;
    const another = `inv_2.${expiry}.${signature}`;

    // Act & Assess
    for (const altered of [later, another]) {
      await expect(verifyInvitationToken(key, altered, issuedAt)).rejects.toMatchObject({
        statusCode: 400,
        message: 'The invitation token is not valid',
      });
    }
  });

  it("are refused when signed with another deployment's secret, or malformed", async () => {
    // Prepare
    const foreign = await signInvitationToken(otherKey, { invitationId: 'inv_1', expiresAt });

    // Act & Assess
    for (const token of [foreign, 'inv_1', 'a.b.c', '', 'inv_1.123.']) {
      await expect(verifyInvitationToken(key, token, issuedAt), token).rejects.toMatchObject({
        statusCode: 400,
      });
    }
  });
});
