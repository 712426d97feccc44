/** The sign-in screen: an API key, or single sign-on when the deployment has it. */
import { useState } from 'preact/hooks';
import { call } from './api';
import { html } from './html';
import { keepCredential } from './session';
import { type SsoConfig, startSsoSignIn } from './sso';
import { ErrorNote } from './ui';

export function SignIn({
  sso,
  initialError,
  onSignedIn,
}: {
  sso?: SsoConfig;
  initialError?: unknown;
  onSignedIn(): void;
}) {
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>(initialError);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // The key is tried before it is kept: a wrong one shows the service's own answer here.
      await call('GET', '/api/workspaces', undefined, { 'x-api-key': apiKey.trim() });
      keepCredential({ kind: 'apiKey', apiKey: apiKey.trim() });
      onSignedIn();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return html`<main class="sign-in">
    <h1>Workflow console</h1>
    <form onSubmit=${submit} aria-describedby="sign-in-help">
      <p id="sign-in-help">Sign in with one of your API keys. It is kept in this tab only, and forgotten when you sign out or close it.</p>
      <label for="api-key">API key</label>
      <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck=${false} required
        value=${apiKey} onInput=${(event: Event) => setApiKey((event.target as HTMLInputElement).value)} />
      <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
      <${ErrorNote} error=${error} />
    </form>
    ${
      sso &&
      html`<p class="or">or</p>
        <button type="button" class="sso" onClick=${() => startSsoSignIn(sso).catch(setError)}>Sign in with SSO</button>`
    }
  </main>`;
}
