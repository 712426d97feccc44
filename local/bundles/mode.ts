/** `LOCAL_HANDLERS`: what serves the routes and workers of `npm start` (its definition: catalog/settings.ts). */
import { localServerSettings, parseSetting, SettingsError } from '../../catalog/settings';

export type HandlersMode = 'sources' | 'bundles';

export class HandlersModeError extends Error {
  readonly status = 400;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HandlersModeError';
  }
}

export function handlersModeOf(value: string | undefined): HandlersMode {
  try {
    return parseSetting('LOCAL_HANDLERS', localServerSettings.LOCAL_HANDLERS, value) as HandlersMode;
  } catch (error) {
    if (error instanceof SettingsError) throw new HandlersModeError(error.message, { cause: error });
    throw error;
  }
}
