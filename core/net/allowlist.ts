/**
 * `OUTBOUND_ALLOWLIST`: hosts, IP addresses and CIDR ranges, each with an optional port, that the
 * outbound guard lets through although they are not public (a self-hosted intranet, a receiver on
 * localhost in development). Addresses are parsed and matched by ipaddr.js; IPv4-mapped IPv6
 * addresses match their IPv4 entries. The policy never lets cloud metadata addresses through,
 * listed or not (core/net/address-policy.ts).
 *
 * ipaddr.js is loaded on first use (core/net/ipaddr.ts).
 *
 *   OUTBOUND_ALLOWLIST="hooks.intranet, 10.20.0.0/16, 127.0.0.1:4000, [::1]:4000, [fd00::/8]:443"
 */
import { type Ipaddr, loadIpaddr } from './ipaddr';

type Range = [Ipaddr.IPv4 | Ipaddr.IPv6, number];

type Entry = { kind: 'name'; name: string; port?: number } | { kind: 'range'; range: Range; port?: number };

export class OutboundAllowlistError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundAllowlistError';
  }
}

function portOf(text: string, entry: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535)
    throw new OutboundAllowlistError(`OUTBOUND_ALLOWLIST entry "${entry}": ${text} is not a port`);
  return port;
}

function rangeOf(text: string): Range | undefined {
  const ipaddr = loadIpaddr();
  if (text.includes('/')) return ipaddr.isValidCIDR(text) ? ipaddr.parseCIDR(text) : undefined;
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

const namePattern =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/;

function entryOf(raw: string): Entry {
  let host = raw;
  let port: number | undefined;
  const bracketed = raw.match(/^\[([^\]]+)\](?::(.*))?$/);
  if (bracketed) {
    host = bracketed[1] as string;
    if (bracketed[2] !== undefined) port = portOf(bracketed[2], raw);
  } else if ((raw.match(/:/g) ?? []).length === 1) {
    const [name, portText] = raw.split(':') as [string, string];
    host = name;
    port = portOf(portText, raw);
  }
  const range = rangeOf(host);
  if (range) return { kind: 'range', range, port };
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!namePattern.test(name))
    throw new OutboundAllowlistError(
      `OUTBOUND_ALLOWLIST entry "${raw}" is not a host, IP address or CIDR range`,
    );
  return { kind: 'name', name, port };
}

export class OutboundAllowlist {
  private constructor(private readonly entries: Entry[]) {}

  static readonly empty = new OutboundAllowlist([]);

  /** Comma-separated entries; an entry that is not a host, address or range is an error naming it. */
  static parse(text: string | undefined): OutboundAllowlist {
    const raws = (text ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    return raws.length === 0 ? OutboundAllowlist.empty : new OutboundAllowlist(raws.map(entryOf));
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** Whether a host name (as in the URL) on `port` is listed by name. */
  admitsName(hostname: string, port: number): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.entries.some(
      (entry) => entry.kind === 'name' && entry.name === name && portMatches(entry, port),
    );
  }

  /** `admitsAddress` for an address as 4 or 16 bytes in network order (the address policy's form). */
  admitsAddressBytes(bytes: Uint8Array, port: number): boolean {
    if (!this.entries.some((entry) => entry.kind === 'range')) return false;
    return this.admitsAddress(
      loadIpaddr()
        .fromByteArray([...bytes])
        .toString(),
      port,
    );
  }

  /** Whether an IP address (a literal in the URL, or what a name resolved to) on `port` is in a listed range. */
  admitsAddress(address: string, port: number): boolean {
    if (!this.entries.some((entry) => entry.kind === 'range')) return false;
    const ipaddr = loadIpaddr();
    const text = address.replace(/^\[|\]$/g, '');
    if (!ipaddr.isValid(text)) return false;
    const parsed = ipaddr.process(text);
    return this.entries.some(
      (entry) =>
        entry.kind === 'range' &&
        entry.range[0].kind() === parsed.kind() &&
        (parsed as Ipaddr.IPv4).match(entry.range as [Ipaddr.IPv4, number]) &&
        portMatches(entry, port),
    );
  }
}

function portMatches(entry: Entry, port: number): boolean {
  return entry.port === undefined || entry.port === port;
}
