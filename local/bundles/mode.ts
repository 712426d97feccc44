/** `LOCAL_HANDLERS`: what serves the routes and workers of `npm start`. */
export type HandlersMode = 'sources' | 'bundles';

export class HandlersModeError extends Error {
  readonly status = 400;
  constructor(value: string) {
    super(`LOCAL_HANDLERS must be "sources" (the default) or "bundles", not "${value}"`);
    this.name = 'HandlersModeError';
  }
}

export function handlersModeOf(value: string | undefined): HandlersMode {
  if (value === undefined || value === '' || value === 'sources') return 'sources';
  if (value === 'bundles') return 'bundles';
  throw new HandlersModeError(value);
}
