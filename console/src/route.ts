/**
 * The console's address: everything after `#`, e.g. `#/w/ws_1/logs?level=error&q=trigger:webhook`.
 * The hash keeps the page one file for the site (no rewrite of deep paths) and a link reproduces
 * the view, filters included.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  segments: string[];
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '');
  const queryAt = text.indexOf('?');
  const path = queryAt === -1 ? text : text.slice(0, queryAt);
  const query = queryAt === -1 ? '' : text.slice(queryAt + 1);
  return {
    segments: path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment)),
    params: new URLSearchParams(query),
  };
}

/** `#/w/<ws>/logs?…` from segments and parameters (empty values are left out). */
export function hrefOf(segments: string[], params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  const text = query.toString();
  return `#/${segments.map((segment) => encodeURIComponent(segment)).join('/')}${text ? `?${text}` : ''}`;
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else location.hash = href;
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}
