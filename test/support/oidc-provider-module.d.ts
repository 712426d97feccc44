/** The little of oidc-provider (no types of its own) the tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface ProviderClient {
    clientId: string;
  }
  interface IdTokenInstance {
    scope: string;
    issue(options: { use: 'idtoken'; expiresAt?: number }): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    Client: { find(id: string): Promise<ProviderClient | undefined> };
    IdToken: new (
      claims: Record<string, unknown>,
      options: { client: ProviderClient },
    ) => IdTokenInstance;
  }
}
