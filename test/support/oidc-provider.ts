/**
 * A real OpenID provider (oidc-provider) on loopback for the single sign-on tests: discovery,
 * JWKS, and ID tokens for one client signed with its own RSA key, as the provider issues them.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const testClientId = 'workflow-service-test';

export interface TestOidcProvider {
  /** http://127.0.0.1:<port>: what OIDC_ISSUER names. */
  issuer: string;
  clientId: string;
  /** The provider's signing key and its key id, to mint tokens that differ in one claim only. */
  signingKey: { privateKey: CryptoKey; kid: string };
  /** Paths the provider was asked for, in order (discovery, JWKS, ...). */
  requestedPaths: string[];
  /** An ID token for `email`, signed by the provider, issued to the test client. */
  idTokenFor(email: string, options?: { subject?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** The provider's storage (sessions, grants): in memory, which is all a test needs. */
class MemoryAdapter {
  private readonly items = new Map<string, Record<string, unknown>>();
  async upsert(id: string, payload: Record<string, unknown>) {
    this.items.set(id, payload);
  }
  async find(id: string) {
    return this.items.get(id);
  }
  async findByUserCode() {
    return undefined;
  }
  async findByUid() {
    return undefined;
  }
  async consume(id: string) {
    const item = this.items.get(id);
    if (item) item.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    this.items.delete(id);
  }
  async revokeByGrantId() {}
}

export async function startOidcProvider(): Promise<TestOidcProvider> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const requestedPaths: string[] = [];
  const server = createServer((request, response) => {
    requestedPaths.push(new URL(request.url ?? '/', 'http://provider').pathname);
    if (handle) handle(request, response);
    else response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'provider-key-1', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: testClientId,
        token_endpoint_auth_method: 'none',
        // Registered because a client must have one; no test follows a redirect.
        redirect_uris: ['https://client.example/callback'],
      },
    ],
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { IdToken: 3600 },
    adapter: MemoryAdapter,
    jwks: { keys: [signingKey] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub }),
    }),
  });
  handle = provider.callback();

  return {
    issuer,
    clientId: testClientId,
    signingKey: { privateKey, kid: signingKey.kid },
    requestedPaths,
    async idTokenFor(email, options = {}) {
      const client = await provider.Client.find(testClientId);
      if (!client) throw new Error('The test client is not registered');
      const token = new provider.IdToken(
        { sub: options.subject ?? `subject-${email}`, email, email_verified: true },
        { client },
      );
      token.scope = 'openid email';
      return token.issue({ use: 'idtoken' });
    },
    stop: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
