import { describe, expect, it } from 'vitest';
import { checkHost, checkIpAddress } from '../../../core/net/address-policy';

/** Classification only: nothing here connects anywhere. */
function verdictOf(address: string) {
  const verdict = checkIpAddress(address);
  return verdict.allowed
    ? { allowed: true }
    : { category: verdict.category, description: verdict.description };
}

describe('address policy: tricky forms of an address', () => {
  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'an IPv4-mapped IPv6 address of a loopback address'],
    ['[::ffff:127.0.0.1]', 'loopback', 'an IPv4-mapped IPv6 address of a loopback address'],
    ['::FFFF:7F00:1', 'loopback', 'an IPv4-mapped IPv6 address of a loopback address'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback', 'an IPv4-mapped IPv6 address of a loopback address'],
    ['::ffff:169.254.169.254', 'metadata', 'an IPv4-mapped IPv6 address of a cloud metadata address'],
    ['::ffff:0:10.1.2.3', 'private', 'an IPv4-translated IPv6 address of a private address'],
    ['::127.0.0.1', 'loopback', 'an IPv4-compatible IPv6 address of a loopback address'],
    ['::8.8.8.8', 'reserved', 'an IPv4-compatible IPv6 address'],
    ['64:ff9b::127.0.0.1', 'loopback', 'a NAT64 IPv6 address of a loopback address'],
    ['2002:a9fe:a9fe::', 'metadata', 'a 6to4 IPv6 address of a cloud metadata address'],
  ])('refuses the IPv6 form %s (%s)', (address, category, description) => {
    expect(verdictOf(address)).toEqual({ category, description });
  });

  it.each([
    '0x7f.1',
    '0x7f.0.0.1',
    '0x7F000001',
    '2130706433',
    '0177.0.0.1',
    '0177.1',
    '127.1',
    '127.0.1',
    '017700000001',
  ])('refuses the octal, hexadecimal or short IPv4 form %s as 127.0.0.1', (address) => {
    expect(verdictOf(address)).toEqual({ category: 'loopback', description: 'a loopback address' });
  });

  it.each([
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1%eth0]', 'link-local'],
    ['[fe80::1%25eth0]', 'link-local'],
    ['::1%lo', 'loopback'],
    ['ff02::1%2', 'multicast'],
    ['::ffff:127.0.0.1%eth0', 'loopback'],
    ['fd00:ec2::254%eth0', 'metadata'],
  ])('refuses %s whatever its zone id (%s)', (address, category) => {
    expect(verdictOf(address)).toMatchObject({ category });
  });

  it.each([
    '::ffff:0x7f.1',
    '::ffff:127.1',
    '1.2.3.4.5',
    '256.0.0.1',
    '127.0.0.1:80',
    '[::1]:8080',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '::ffff:1.2.3',
    '12345::1',
    'example.com',
    '',
  ])('refuses %s as not a valid IP address', (address) => {
    expect(verdictOf(address)).toEqual({ category: 'invalid', description: 'not a valid IP address' });
  });

  it.each(['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '2606:4700::1111%eth0', '8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(verdictOf(address)).toEqual({ allowed: true });
    },
  );

  it('never lets an embedded loopback address through allowLoopback, only the plain one', () => {
    expect(checkHost('::ffff:127.0.0.1', { allowLoopback: true })).toMatchObject({ category: 'loopback' });
    expect(checkHost('0x7f.1', { allowLoopback: true })).toEqual({ allowed: true });
    expect(checkHost('::1%lo', { allowLoopback: true })).toEqual({ allowed: true });
  });
});
