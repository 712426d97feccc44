/** Small pieces every page uses: a status with its icon and word, errors, loading, JSON. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { statusIcon, statusName } from './format';
import { html } from './html';

export function Status({ status }: { status: string | undefined }) {
  const name = statusName(status);
  return html`<span class=${`status status-${name.toLowerCase()}`}
    ><span aria-hidden="true" class="status-icon">${statusIcon(status)}</span> ${name}</span
  >`;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return html`<p class="error-note" role="alert"><span aria-hidden="true">⚠ </span>${message}</p>`;
}

export function Loading({ what }: { what: string }) {
  return html`<p class="loading" role="status">Loading ${what}…</p>`;
}

/** JSON folded in a `details`: the browser's own disclosure, keyboard and screen reader included. */
export function JsonView({ label, value, open = false }: { label: string; value: unknown; open?: boolean }) {
  if (value === undefined) return null;
  return html`<details class="json" open=${open}>
    <summary>${label}</summary>
    <pre tabindex="0">${JSON.stringify(value, null, 2)}</pre>
  </details>`;
}

export interface Async<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` when `keys` change; `reload` loads again (after a change the page made). */
export function useAsync<T>(load: () => Promise<T>, keys: unknown[]): Async<T> {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ value: previous.value, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...keys, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}

/** Runs an action of a button: busy while it runs, its error kept to show. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  run(action: () => Promise<unknown>): Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
