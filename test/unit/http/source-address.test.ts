import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sourceAddressOf, viewerAddressOf } from '../../../functions/http/source-address';

const eventOf = (headers: Record<string, string>, sourceIp = '130.176.1.10') =>
  ({ headers, requestContext: { identity: { sourceIp } } }) as unknown as APIGatewayProxyEvent;

describe('sourceAddressOf', () => {
  it("is API Gateway's source address when no edge secret is configured", () => {
    const event = eventOf({
      'CloudFront-Viewer-Address': '198.51.100.7:5000',
      'x-svc-edge-secret': 's3cret',
    });

    expect(sourceAddressOf(event, undefined)).toBe('130.176.1.10');
  });

  it("is CloudFront's viewer address when the request carries the edge secret", () => {
    const event = eventOf({
      'CloudFront-Viewer-Address': '198.51.100.7:5000',
      'X-Svc-Edge-Secret': 's3cret',
    });

    expect(sourceAddressOf(event, 's3cret')).toBe('198.51.100.7');
  });

  it('ignores a viewer address sent with a wrong or missing secret, as anybody can forge it', () => {
    const forged = eventOf({
      'cloudfront-viewer-address': '198.51.100.7:5000',
      'x-svc-edge-secret': 'guess',
    });
    const bare = eventOf({ 'cloudfront-viewer-address': '198.51.100.7:5000' });

    expect(sourceAddressOf(forged, 's3cret')).toBe('130.176.1.10');
    expect(sourceAddressOf(bare, 's3cret')).toBe('130.176.1.10');
  });

  it('keeps the direct address when the viewer address is malformed', () => {
    const event = eventOf({ 'cloudfront-viewer-address': 'evil.example', 'x-svc-edge-secret': 's3cret' });

    expect(sourceAddressOf(event, 's3cret')).toBe('130.176.1.10');
  });
});

describe('viewerAddressOf', () => {
  it('drops the port of IPv4 and IPv6 addresses', () => {
    expect(viewerAddressOf('192.0.2.1:46532')).toBe('192.0.2.1');
    expect(viewerAddressOf('2001:DB8::1:46532')).toBe('2001:db8::1');
    expect(viewerAddressOf('[2001:db8::1]:443')).toBe('2001:db8::1');
  });

  it('refuses what is not an address', () => {
    expect(viewerAddressOf('no-port')).toBeUndefined();
    expect(viewerAddressOf('host.example:80')).toBeUndefined();
  });
});
