import { describe, expect, it } from 'vitest';
import { checkIpAddress, checkUrl } from '../../../core/net/address-policy';
import { OutboundAllowlist, OutboundAllowlistError } from '../../../core/net/allowlist';

describe('OutboundAllowlist', () => {
  it('admits addresses in listed ranges, on the listed port or any port', () => {
    // Prepare
    const list = OutboundAllowlist.parse('10.20.0.0/16, 127.0.0.1:4000, [::1]:4000, fd00::/8');

    // Act
    const answers = [
      list.admitsAddress('10.20.3.4', 443),
      list.admitsAddress('10.21.0.1', 443),
      list.admitsAddress('127.0.0.1', 4000),
      list.admitsAddress('127.0.0.1', 4001),
      list.admitsAddress('::1', 4000),
      list.admitsAddress('[fd12::1]', 80),
      list.admitsAddress('::ffff:127.0.0.1', 4000),
    ];

    // Assess
    expect(answers).toEqual([true, false, true, false, true, true, true]);
  });

  it('admits addresses given as bytes as it admits their text', () => {
    // Prepare
    const list = OutboundAllowlist.parse('10.20.0.0/16, 127.0.0.1:4000, [::1]:4000');
    const mappedLoopback = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]);
    const ipv6Loopback = Uint8Array.from([...new Array<number>(15).fill(0), 1]);

    // Act
    const answers = [
      list.admitsAddressBytes(Uint8Array.from([10, 20, 3, 4]), 443),
      list.admitsAddressBytes(Uint8Array.from([10, 21, 0, 1]), 443),
      list.admitsAddressBytes(mappedLoopback, 4000),
      list.admitsAddressBytes(ipv6Loopback, 4000),
      list.admitsAddressBytes(ipv6Loopback, 4001),
    ];

    // Assess
    expect(answers).toEqual([true, false, true, true, false]);
  });

  it('admits listed names, case and trailing dot aside', () => {
    // Prepare
    const list = OutboundAllowlist.parse('Hooks.Intranet, localhost:3000');

    // Act
    const answers = [
      list.admitsName('hooks.intranet.', 443),
      list.admitsName('localhost', 3000),
      list.admitsName('localhost', 3001),
      list.admitsName('other.intranet', 443),
    ];

    // Assess
    expect(answers).toEqual([true, true, false, false]);
  });

  it.each([['not a host!'], ['10.0.0.0/99'], ['127.0.0.1:0'], ['host:port'], ['[::1]:70000']])(
    'refuses the entry %s with an error naming it',
    (entry) => {
      // Act
      const attempt = () => OutboundAllowlist.parse(`example.com, ${entry}`);

      // Assess
      expect(attempt).toThrow(OutboundAllowlistError);
      expect(attempt).toThrow(entry);
    },
  );

  it('is empty for an unset or blank value', () => {
    expect(OutboundAllowlist.parse(undefined).isEmpty).toBe(true);
    expect(OutboundAllowlist.parse(' , ').isEmpty).toBe(true);
  });
});

describe('the address policy with an allowlist', () => {
  it('lets a listed private URL through and keeps refusing the rest', () => {
    // Prepare
    const allowlist = OutboundAllowlist.parse('127.0.0.2:8080, intranet.local');

    // Act
    const listed = checkUrl('http://127.0.0.2:8080/hook', { allowlist });
    const otherPort = checkUrl('http://127.0.0.2:8081/hook', { allowlist });
    const decimal = checkUrl('http://2130706434:8080/hook', { allowlist });
    const byName = checkIpAddress('10.0.0.5', { allowlist, port: 443, viaAdmittedName: true });
    const notByName = checkIpAddress('10.0.0.5', { allowlist, port: 443 });

    // Assess
    expect(listed.allowed).toBe(true);
    expect(otherPort.allowed).toBe(false);
    expect(decimal.allowed).toBe(true);
    expect(byName.allowed).toBe(true);
    expect(notByName.allowed).toBe(false);
  });

  it('never lets a cloud metadata address through, listed or not', () => {
    // Prepare
    const allowlist = OutboundAllowlist.parse('169.254.0.0/16, metadata.google.internal');

    // Act
    const literal = checkUrl('http://169.254.169.254/latest/meta-data', { allowlist });
    const resolved = checkIpAddress('169.254.169.254', { allowlist, port: 80, viaAdmittedName: true });

    // Assess
    expect(literal.allowed).toBe(false);
    expect(resolved.allowed).toBe(false);
  });
});
