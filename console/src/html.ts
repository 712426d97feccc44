/** htm bound to Preact: tagged templates in place of JSX, so the sources need no JSX transform. */
import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
