/** The console's entry: settings of the deployment (SSO), a sign-in coming back, then the app. */
import { render } from 'preact';
import { App } from './app';
import { html } from './html';
import { finishSsoSignIn, loadConfig } from './sso';

const root = document.getElementById('app');
if (root) {
  const config = await loadConfig();
  let startError: unknown;
  await finishSsoSignIn(config.sso).catch((error) => {
    startError = error;
  });
  root.removeAttribute('aria-busy');
  // The page's "Loading…" placeholder goes: Preact renders beside what is there.
  root.replaceChildren();
  render(html`<${App} config=${config} startError=${startError} />`, root);
}
