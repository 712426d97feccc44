/** Reading the deployment's model endpoints from the settings. */
import { describe, expect, it } from 'vitest';
import { ModelEndpointSettingError, modelBaseUrlsFrom } from '../../../adapters/llm/endpoints';

describe('modelBaseUrlsFrom', () => {
  it('gives the endpoint of each provider whose setting is given', () => {
    // Act
    const urls = modelBaseUrlsFrom({
      OPENAI_BASE_URL: ' http://127.0.0.1:8080/v1 ',
      ANTHROPIC_BASE_URL: '',
    });

    // Assess
    expect(urls).toEqual({ openai: 'http://127.0.0.1:8080/v1' });
  });

  it('refuses a setting that is no http(s) URL, naming it', () => {
    // Act
    const read = () => modelBaseUrlsFrom({ ANTHROPIC_BASE_URL: 'ftp://gateway.example.com' });

    // Assess
    expect(read).toThrow(ModelEndpointSettingError);
    expect(read).toThrow('ANTHROPIC_BASE_URL must be an http(s) URL, not "ftp://gateway.example.com"');
  });
});
