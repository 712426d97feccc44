import { render } from 'preact';
import { html } from './html';

const root = document.getElementById('app');
if (root) {
  root.removeAttribute('aria-busy');
  render(html`<main><h1>Console</h1></main>`, root);
}
