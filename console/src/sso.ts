/**
 * Sign-in through the Cognito hosted UI: the authorization code flow with PKCE (S256), as a public
 * client without a secret. The deployment writes `config.json` beside index.html; without it (the
 * local server) there is no SSO and the console asks for an API key.
 */
import { keepCredential } from './session';

export interface SsoConfig {
  /** The user pool's domain, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  domain: string;
  clientId: string;
  scopes?: string[];
}

export interface ConsoleConfig {
  sso?: SsoConfig;
}

/** The SSO error of a sign-in that came back refused. */
export class SsoError extends Error {
  override readonly name = 'SsoError';
  readonly status = 401;
}

const pendingKey = 'console.sso.pending';

export async function loadConfig(): Promise<ConsoleConfig> {
  try {
    const answer = await fetch('config.json', { cache: 'no-cache' });
    if (!answer.ok) return {};
    const config = (await answer.json()) as ConsoleConfig;
    return config?.sso?.domain && config.sso.clientId ? config : {};
  } catch {
    return {};
  }
}

/** Where the hosted UI sends the user back: the console's own page (a Cognito callback URL). */
export function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

function base64Url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(byteCount: number): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(byteCount)));
}

export async function startSsoSignIn(sso: SsoConfig): Promise<void> {
  const verifier = randomText(48);
  const state = randomText(24);
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(pendingKey, JSON.stringify({ verifier, state, hash: location.hash }));
  const url = new URL('/oauth2/authorize', sso.domain);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: sso.clientId,
    redirect_uri: redirectUri(),
    scope: (sso.scopes ?? ['openid', 'email']).join(' '),
    code_challenge_method: 'S256',
    code_challenge: challenge,
    state,
  }).toString();
  location.assign(url.href);
}

/**
 * Finishes a sign-in the hosted UI sent back (`?code=…&state=…`): the code is exchanged for tokens
 * and removed from the address bar. Answers whether there was one to finish.
 */
export async function finishSsoSignIn(sso: SsoConfig | undefined): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const returnedError = params.get('error_description') ?? params.get('error');
  if (!code && !returnedError) return false;
  const pending = JSON.parse(sessionStorage.getItem(pendingKey) ?? 'null') as {
    verifier: string;
    state: string;
    hash: string;
  } | null;
  sessionStorage.removeItem(pendingKey);
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`);
  if (returnedError) throw new SsoError(`Single sign-on was refused: ${returnedError}`);
  if (!sso || !pending || pending.state !== params.get('state'))
    throw new SsoError('This sign-in did not start here: sign in again.');
  const answer = await fetch(new URL('/oauth2/token', sso.domain).href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: sso.clientId,
      code: code ?? '',
      redirect_uri: redirectUri(),
      code_verifier: pending.verifier,
    }).toString(),
  });
  const tokens = (await answer.json().catch(() => ({}))) as {
    id_token?: string;
    expires_in?: number;
    error?: string;
  };
  if (!answer.ok || !tokens.id_token)
    throw new SsoError(`Single sign-on failed: ${tokens.error ?? answer.status}`);
  keepCredential({
    kind: 'idToken',
    idToken: tokens.id_token,
    expiresAtMs: Date.now() + (tokens.expires_in ?? 3600) * 1000,
  });
  return true;
}

/** Ends the hosted UI's session too, and comes back to the console. */
export function ssoSignOut(sso: SsoConfig): void {
  const url = new URL('/logout', sso.domain);
  url.search = new URLSearchParams({ client_id: sso.clientId, logout_uri: redirectUri() }).toString();
  location.assign(url.href);
}
