/**
 * The deployment's model endpoints (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`): where the agent and
 * router blocks of a deployment call a provider when the block sets no `baseUrl` of its own, e.g. a
 * company's model gateway or an OpenAI-compatible server. Read from the settings once, at wiring.
 */

export class ModelEndpointSettingError extends Error {
  readonly status = 500;
  constructor(message: string) {
    super(message);
    this.name = 'ModelEndpointSettingError';
  }
}

/** The setting of each provider's endpoint, by provider. */
export const modelEndpointSettings = { openai: 'OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL' } as const;

export type ModelBaseUrls = { -readonly [P in keyof typeof modelEndpointSettings]?: string };

/** The endpoints the settings give; an empty setting is none, one that is no http(s) URL stops the start. */
export function modelBaseUrlsFrom(settings: Readonly<Record<string, string | undefined>>): ModelBaseUrls {
  const urls: ModelBaseUrls = {};
  for (const [provider, name] of Object.entries(modelEndpointSettings) as [keyof ModelBaseUrls, string][]) {
    const value = settings[name]?.trim();
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ModelEndpointSettingError(`${name} must be an http(s) URL, not ${JSON.stringify(value)}`);
    }
    urls[provider] = value;
  }
  return urls;
}
