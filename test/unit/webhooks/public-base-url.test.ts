import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { publicBaseUrl } from '../../../functions/wiring/webhooks';
import { changeSettings } from '../../support/settings';

const saved = process.env.PUBLIC_BASE_URL;

const eventAt = (path: string, stage = 'prod') =>
  ({ requestContext: { stage, path } }) as unknown as APIGatewayProxyEvent;

afterEach(() => {
  changeSettings({ PUBLIC_BASE_URL: saved });
});

describe('publicBaseUrl', () => {
  it('uses PUBLIC_BASE_URL when it is set, without a trailing slash', () => {
    changeSettings({ PUBLIC_BASE_URL: 'https://hooks.example.com/' });
    expect(publicBaseUrl(eventAt('/api/x'), { host: 'abc.execute-api.aws' })).toBe(
      'https://hooks.example.com',
    );
  });

  it('uses the Host header and X-Forwarded-Proto when PUBLIC_BASE_URL is not set', () => {
    changeSettings({ PUBLIC_BASE_URL: '' });
    expect(publicBaseUrl(eventAt('/api/x'), { host: 'api.example.com', 'x-forwarded-proto': 'https' })).toBe(
      'https://api.example.com',
    );
  });

  it('takes the first of several forwarded protocols, as the one the caller used', () => {
    changeSettings({ PUBLIC_BASE_URL: '' });
    expect(
      publicBaseUrl(eventAt('/api/x'), { host: 'api.example.com', 'x-forwarded-proto': 'https, http' }),
    ).toBe('https://api.example.com');
  });

  it('assumes http for localhost and https elsewhere when no protocol is forwarded', () => {
    changeSettings({ PUBLIC_BASE_URL: '' });
    expect(publicBaseUrl(eventAt('/api/x', 'local'), { host: 'localhost:3000' })).toBe(
      'http://localhost:3000',
    );
    expect(publicBaseUrl(eventAt('/api/x', 'local'), { host: '127.0.0.1:3000' })).toBe(
      'http://127.0.0.1:3000',
    );
    expect(publicBaseUrl(eventAt('/api/x'), { host: 'api.example.com' })).toBe('https://api.example.com');
  });

  it("keeps API Gateway's stage when the request came through the stage path", () => {
    changeSettings({ PUBLIC_BASE_URL: '' });
    expect(
      publicBaseUrl(eventAt('/prod/api/workflows/wf_1/webhooks'), {
        host: 'abc.execute-api.eu-west-1.amazonaws.com',
        'x-forwarded-proto': 'https',
      }),
    ).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod');
  });
});
