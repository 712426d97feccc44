/**
 * Who the console acts as: an API key, or with SSO an ID token of the Cognito user pool. Kept in
 * `sessionStorage` only (gone with the tab; never in a URL or a cookie), and forgotten on sign-out.
 */
const storageKey = 'console.credential';

export type Credential =
  | { kind: 'apiKey'; apiKey: string }
  | { kind: 'idToken'; idToken: string; expiresAtMs: number };

export function currentCredential(): Credential | undefined {
  const text = sessionStorage.getItem(storageKey);
  if (!text) return undefined;
  try {
    const credential = JSON.parse(text) as Credential;
    if (credential.kind === 'idToken' && credential.expiresAtMs <= Date.now()) return undefined;
    return credential;
  } catch {
    return undefined;
  }
}

export function keepCredential(credential: Credential): void {
  sessionStorage.setItem(storageKey, JSON.stringify(credential));
}

export function forgetCredential(): void {
  sessionStorage.removeItem(storageKey);
}

export function credentialHeaders(credential = currentCredential()): Record<string, string> {
  if (!credential) return {};
  return credential.kind === 'apiKey'
    ? { 'x-api-key': credential.apiKey }
    : { authorization: `Bearer ${credential.idToken}` };
}
