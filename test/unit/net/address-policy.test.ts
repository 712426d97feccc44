import { describe, expect, it } from 'vitest';
import {
  checkHost,
  checkIpAddress,
  checkUrl,
  normalizeHost,
  refusalMessage,
} from '../../../core/net/address-policy';

/** Classification only: nothing here connects anywhere. */
function categoryOfUrl(url: string, allowLoopback = false): string {
  const check = checkUrl(url, { allowLoopback });
  return check.allowed ? 'allowed' : check.category;
}

describe('address policy: URLs', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.255.255.254:8080/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::127.0.0.1]/', 'loopback'],
    ['http://[::ffff:0:127.0.0.1]/', 'loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.0.1/', 'carrier-grade-nat'],
    ['http://100.127.255.255/', 'carrier-grade-nat'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://169.254.1.1/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[febf::1]/', 'link-local'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://239.255.255.250/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://192.0.0.192/', 'reserved'],
    ['http://192.0.2.1/', 'documentation'],
    ['http://198.51.100.7/', 'documentation'],
    ['http://203.0.113.9/', 'documentation'],
    ['http://[2001:db8::1]/', 'documentation'],
    ['http://[3fff::1]/', 'documentation'],
    ['http://198.18.0.1/', 'benchmarking'],
    ['http://198.19.255.255/', 'benchmarking'],
    ['http://[64:ff9b::7f00:1]/', 'loopback'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'metadata'],
    ['http://[64:ff9b:1::1]/', 'private'],
    ['http://[2002:7f00:1::]/', 'loopback'],
    ['http://[2002:c0a8:101::1]/', 'private'],
    ['http://[2001::1]/', 'reserved'],
    ['http://[fec0::1]/', 'reserved'],
    ['http://[100::1]/', 'reserved'],
    ['http://[4000::1]/', 'reserved'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://METADATA.google.internal./', 'metadata'],
    ['http://localhost:3000/', 'loopback'],
    ['http://api.localhost/', 'loopback'],
  ])('refuses %s (%s)', (url, category) => {
    expect(categoryOfUrl(url)).toBe(category);
  });

  it.each([
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://017700000001/',
    'http://１２７.0.0.1/',
  ])('refuses the numeric encoding %s as 127.0.0.1, as WHATWG URL parsing normalizes it', (url) => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const check = checkUrl(url);
    expect(check).toMatchObject({ allowed: false, category: 'loopback' });
    expect(!check.allowed && check.message).toBe('Request to 127.0.0.1 refused: it is a loopback address');
  });

  it.each([
    'http://93.184.216.34/',
    'https://93.184.216.34:8443/path?q=1',
    'http://8.8.8.8/',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://[2606:4700::1111]/',
    'http://[2a00:1450:4001:80b::200e]/',
    'http://[::ffff:93.184.216.34]/',
    'http://[64:ff9b::808:808]/',
    'http://[2002:5db8:d822::1]/',
    'https://example.com/',
    'https://api.example.com:8443/v1/things',
  ])('allows the public destination %s', (url) => {
    expect(categoryOfUrl(url)).toBe('allowed');
  });

  it.each([
    ['ftp://example.com/', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['gopher://127.0.0.1:6379/_INFO', 'scheme'],
    ['data:text/plain,hello', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['ws://example.com/', 'scheme'],
    ['not a url', 'invalid-url'],
    ['/relative/path', 'invalid-url'],
    ['https://user:secret@example.com/', 'credentials'],
  ])('refuses %s (%s)', (url, category) => {
    expect(categoryOfUrl(url)).toBe(category);
  });

  it('words refusals for people and does not echo credentials', () => {
    expect(checkUrl('ftp://example.com/')).toMatchObject({
      message: 'Request refused: only http and https URLs are allowed, not ftp:',
    });
    const credentials = checkUrl('https://user:secret@example.com/');
    expect(!credentials.allowed && credentials.message).not.toContain('secret');
    expect(checkUrl('http://[::ffff:127.0.0.1]/')).toMatchObject({
      message: 'Request to [::ffff:7f00:1] refused: it is an IPv4-mapped IPv6 address of a loopback address',
    });
  });

  it('returns the parsed URL and host of an allowed URL', () => {
    const check = checkUrl('HTTPS://Example.COM:8443/a?b=1');
    expect(check.allowed).toBe(true);
    if (!check.allowed) return;
    expect(check.url.href).toBe('https://example.com:8443/a?b=1');
    expect(check.host).toEqual({ kind: 'name', hostname: 'example.com' });
  });
});

describe('address policy: allowLoopback (tests only)', () => {
  it.each([
    'http://127.0.0.1:8080/',
    'http://127.5.6.7/',
    'http://[::1]/',
    'http://localhost/',
    'http://2130706433/',
  ])('lets %s through', (url) => {
    expect(categoryOfUrl(url, true)).toBe('allowed');
  });

  it.each([
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[64:ff9b::7f00:1]/', 'loopback'],
    ['http://[2002:7f00:1::]/', 'loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://10.0.0.1/', 'private'],
    ['http://169.254.169.254/', 'metadata'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://100.64.0.1/', 'carrier-grade-nat'],
  ])('still refuses %s', (url, category) => {
    expect(categoryOfUrl(url, true)).toBe(category);
  });
});

describe('address policy: resolved addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'metadata'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:192.168.0.1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['0177.0.0.1', 'loopback'],
    ['example.com', 'invalid'],
    ['', 'invalid'],
    ['1.2.3', 'allowed'], // 1.2.0.3 once normalized
  ])('classifies %s (%s)', (address, category) => {
    const verdict = checkIpAddress(address);
    expect(verdict.allowed ? 'allowed' : verdict.category).toBe(category);
  });

  it.each(['93.184.216.34', '2606:4700::1111', '2606:4700:4700::1001', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(checkIpAddress(address)).toEqual({ allowed: true });
    },
  );
});

describe('address policy: hosts', () => {
  it('normalizes hosts as URL parsing does', () => {
    expect(normalizeHost('0x7f.1')).toMatchObject({ kind: 'ip', hostname: '127.0.0.1' });
    expect(normalizeHost('::FFFF:127.0.0.1')).toMatchObject({ kind: 'ip', hostname: '[::ffff:7f00:1]' });
    expect(normalizeHost('[::1]')).toMatchObject({ kind: 'ip', hostname: '[::1]' });
    expect(normalizeHost('Example.COM')).toEqual({ kind: 'name', hostname: 'example.com' });
    expect(normalizeHost('example.com:80')).toBeUndefined();
    expect(normalizeHost('example.com/path')).toBeUndefined();
    expect(normalizeHost('user@example.com')).toBeUndefined();
    expect(normalizeHost('1.2.3.4.5')).toBeUndefined();
  });

  it('checks names only by the rules for names; their addresses are checked after resolving', () => {
    expect(checkHost('example.com')).toEqual({ allowed: true });
    expect(checkHost('metadata.google.internal')).toMatchObject({ allowed: false, category: 'metadata' });
    expect(checkHost('localhost')).toMatchObject({ allowed: false, category: 'loopback' });
    expect(checkHost('localhost', { allowLoopback: true })).toEqual({ allowed: true });
  });

  it('says what a resolved name points at without the address', () => {
    const verdict = checkIpAddress('10.0.0.5');
    if (verdict.allowed) throw new Error('expected a refusal');
    const message = refusalMessage('internal.example.com', verdict, true);
    expect(message).toBe('Request to internal.example.com refused: it resolves to a private address');
    expect(message).not.toContain('10.0.0.5');
  });
});
