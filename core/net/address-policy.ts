/**
 * Which destinations outbound HTTP may reach. Pure: parses and classifies hosts,
 * IP addresses and URLs; resolving names and connecting is the guarded client's job.
 *
 * Only public unicast addresses pass. Refused: private, loopback, link-local, carrier-grade NAT,
 * unspecified, multicast, broadcast, reserved, unique-local, documentation and benchmarking ranges,
 * cloud metadata addresses and names, and IPv6 forms that embed a refused IPv4 address
 * (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4). Hosts are normalized the way WHATWG
 * URL parsing does it, so `2130706433`, `0177.0.0.1` and `0x7f.1` are all 127.0.0.1 here as well;
 * the normalized addresses are then read by ipaddr.js, the guard's one address parser (ipaddr.ts).
 */

import type { OutboundAllowlist } from './allowlist';
import { loadIpaddr } from './ipaddr';

export type AddressCategory =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'carrier-grade-nat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'documentation'
  | 'benchmarking'
  | 'invalid';

export interface AddressPolicyOptions {
  /** Lets 127.0.0.0/8, ::1 and `localhost` through, and nothing else. For tests only; production never sets it. */
  allowLoopback?: boolean;
  /** Destinations let through although not public (`OUTBOUND_ALLOWLIST`); never metadata addresses. */
  allowlist?: OutboundAllowlist;
  /** The destination port, for allowlist entries that name one. */
  port?: number;
  /** The name these addresses were resolved from is listed by name: its addresses are admitted too. */
  viaAdmittedName?: boolean;
}

export interface AddressRefusal {
  allowed: false;
  category: AddressCategory;
  /** What the address is, to follow "it is" / "it resolves to": `a loopback address`. */
  description: string;
}

export type AddressVerdict = { allowed: true } | AddressRefusal;

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

/** A host as WHATWG URL parsing normalizes it. */
export type Host = { kind: 'ip'; address: IpAddress; hostname: string } | { kind: 'name'; hostname: string };

export type UrlCheck =
  | { allowed: true; url: URL; host: Host }
  | { allowed: false; category: AddressCategory | 'scheme' | 'credentials' | 'invalid-url'; message: string };

const descriptions: Record<AddressCategory, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  'carrier-grade-nat': 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  'unique-local': 'a unique local IPv6 address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  invalid: 'not a valid IP address',
};

function refuse(category: AddressCategory, description = descriptions[category]): AddressRefusal {
  return { allowed: false, category, description };
}

const allowed: AddressVerdict = { allowed: true };

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/** Four-part decimal only: WHATWG URL parsing has already turned every other IPv4 form into it. */
function parseIpv4(text: string): Uint8Array | undefined {
  const { IPv4 } = loadIpaddr();
  return IPv4.isValidFourPartDecimal(text) ? Uint8Array.from(IPv4.parse(text).octets) : undefined;
}

/** In brackets or not, with a zone id or not (the zone only scopes an address; it is dropped). */
function parseIpv6(text: string): Uint8Array | undefined {
  const source = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const { IPv6 } = loadIpaddr();
  return IPv6.isValid(source) ? Uint8Array.from(IPv6.parse(source).toByteArray()) : undefined;
}

/** Parses a URL's hostname (IPv6 in brackets) as WHATWG URL serializes it. */
function hostFromHostname(hostname: string): Host | undefined {
  if (hostname === '') return undefined;
  if (hostname.startsWith('[')) {
    const bytes = parseIpv6(hostname);
    return bytes ? { kind: 'ip', address: { family: 6, bytes }, hostname } : undefined;
  }
  const v4 = parseIpv4(hostname);
  if (v4) return { kind: 'ip', address: { family: 4, bytes: v4 }, hostname };
  return { kind: 'name', hostname };
}

/**
 * Normalizes a host the way a URL would (`0x7f.1` → 127.0.0.1, `::FFFF:127.0.0.1` → [::ffff:7f00:1],
 * names lowercased and in punycode). IPv6 may come with or without brackets and with a zone id.
 * Undefined for what no URL could have as its host.
 */
export function normalizeHost(text: string): Host | undefined {
  let source = text.trim();
  if (source === '') return undefined;
  if (source.includes(':')) {
    if (!source.startsWith('[')) source = `[${source}]`;
    // The zone only scopes link-local addresses, which are refused whatever the zone.
    source = source.replace(/%[^\]]*\]$/, ']');
  }
  let url: URL;
  try {
    url = new URL(`http://${source}/`);
  } catch {
    return undefined;
  }
  // Anything that parsed into more than a host (port, path, credentials) was not a host.
  if (url.pathname !== '/' || url.port !== '' || url.username !== '' || url.password !== '') return undefined;
  if (url.search !== '' || url.hash !== '') return undefined;
  return hostFromHostname(url.hostname);
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

interface Range {
  prefix: number[];
  bits: number;
  category: AddressCategory;
}

function range(prefix: number[], bits: number, category: AddressCategory): Range {
  return { prefix, bits, category };
}

function inRange(bytes: Uint8Array, { prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const remaining = Math.min(8, bits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    const index = bit / 8;
    if ((bytes[index] & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** Most specific first: the first match names the category. */
const ipv4Ranges: Range[] = [
  range([169, 254, 169, 254], 32, 'metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  range([100, 100, 100, 200], 32, 'metadata'), // Alibaba Cloud metadata
  range([168, 63, 129, 16], 32, 'metadata'), // Azure platform endpoint
  range([0], 8, 'unspecified'), // "this network"; 0.0.0.0 reaches the local host on Linux
  range([10], 8, 'private'),
  range([100, 64], 10, 'carrier-grade-nat'),
  range([127], 8, 'loopback'),
  range([169, 254], 16, 'link-local'),
  range([172, 16], 12, 'private'),
  range([192, 0, 0], 24, 'reserved'), // IETF protocol assignments
  range([192, 0, 2], 24, 'documentation'),
  range([192, 31, 196], 24, 'reserved'), // AS112
  range([192, 52, 193], 24, 'reserved'), // AMT
  range([192, 88, 99], 24, 'reserved'), // former 6to4 relay anycast
  range([192, 168], 16, 'private'),
  range([192, 175, 48], 24, 'reserved'), // direct delegation AS112
  range([198, 18], 15, 'benchmarking'),
  range([198, 51, 100], 24, 'documentation'),
  range([203, 0, 113], 24, 'documentation'),
  range([224], 4, 'multicast'),
  range([255, 255, 255, 255], 32, 'broadcast'),
  range([240], 4, 'reserved'),
];

interface Classification {
  category: AddressCategory;
  description: string;
  /** The refused address was embedded in an IPv6 one; `allowLoopback` never lets these through. */
  embedded: boolean;
}

function classifyIpv4(bytes: Uint8Array): Classification | undefined {
  const match = ipv4Ranges.find((candidate) => inRange(bytes, candidate));
  return match && { category: match.category, description: descriptions[match.category], embedded: false };
}

/** IPv6 ranges that embed an IPv4 address in their last 32 bits (6to4 is handled apart). */
const embeddingRanges: { range: Range; name: string; refuseAnyway: boolean }[] = [
  {
    range: range([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 'reserved'),
    name: 'IPv4-mapped',
    refuseAnyway: false,
  },
  {
    range: range([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96, 'reserved'),
    name: 'IPv4-translated',
    refuseAnyway: false,
  },
  { range: range([0, 0x64, 0xff, 0x9b], 96, 'reserved'), name: 'NAT64', refuseAnyway: false },
  // Deprecated; never a legitimate destination, but name the embedded address when it is refused.
  { range: range([], 96, 'reserved'), name: 'IPv4-compatible', refuseAnyway: true },
];

const ipv6Ranges: Range[] = [
  range([0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128, 'metadata'), // AWS IMDS over IPv6
  range([0, 0x64, 0xff, 0x9b, 0, 0x01], 48, 'private'), // local-use NAT64
  range([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'), // discard-only
  range([0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'),
  range([0x20, 0x01, 0x00, 0x00], 23, 'reserved'), // IETF protocol assignments, Teredo, ORCHID
  range([0x3f, 0xff, 0x00], 20, 'documentation'),
  range([0x5f, 0x00], 16, 'reserved'), // SRv6 SIDs
  range([0xfc], 7, 'unique-local'),
  range([0xfe, 0x80], 10, 'link-local'),
  range([0xfe, 0xc0], 10, 'reserved'), // deprecated site-local
  range([0xff], 8, 'multicast'),
];

const globalUnicast = range([0x20], 3, 'reserved');

function classifyIpv6(bytes: Uint8Array): Classification | undefined {
  const own = (category: AddressCategory): Classification => ({
    category,
    description: descriptions[category],
    embedded: false,
  });
  if (bytes.every((byte) => byte === 0)) return own('unspecified');
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return own('loopback');
  for (const { range: embedding, name, refuseAnyway } of embeddingRanges) {
    if (!inRange(bytes, embedding)) continue;
    const inner = classifyIpv4(bytes.slice(12, 16));
    if (inner) {
      return {
        category: inner.category,
        description: `${an(name)} IPv6 address of ${inner.description}`,
        embedded: true,
      };
    }
    return refuseAnyway ? { ...own('reserved'), description: `${an(name)} IPv6 address` } : undefined;
  }
  if (inRange(bytes, range([0x20, 0x02], 16, 'reserved'))) {
    const inner = classifyIpv4(bytes.slice(2, 6));
    if (inner)
      return {
        category: inner.category,
        description: `a 6to4 IPv6 address of ${inner.description}`,
        embedded: true,
      };
    return undefined;
  }
  const match = ipv6Ranges.find((candidate) => inRange(bytes, candidate));
  if (match) return own(match.category);
  // Outside 2000::/3 nothing is allocated for unicast use.
  if (!inRange(bytes, globalUnicast)) return own('reserved');
  return undefined;
}

function an(word: string): string {
  return /^[aeiouAEIOU]/.test(word) ? `an ${word}` : `a ${word}`;
}

function verdictOf(
  classification: Classification | undefined,
  options: AddressPolicyOptions,
): AddressVerdict {
  if (!classification) return allowed;
  if (classification.category === 'loopback' && !classification.embedded && options.allowLoopback)
    return allowed;
  return refuse(classification.category, classification.description);
}

function checkIp(address: IpAddress, options: AddressPolicyOptions): AddressVerdict {
  const verdict = verdictOf(
    address.family === 4 ? classifyIpv4(address.bytes) : classifyIpv6(address.bytes),
    options,
  );
  if (verdict.allowed || verdict.category === 'metadata' || !options.allowlist) return verdict;
  const admitted =
    options.viaAdmittedName || options.allowlist.admitsAddressBytes(address.bytes, options.port ?? 0);
  return admitted ? allowed : verdict;
}

/** Names that are a refused destination whatever DNS says. */
const metadataNames = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

function checkName(hostname: string, options: AddressPolicyOptions): AddressVerdict {
  const name = hostname.replace(/\.+$/, '');
  if (name === '') return refuse('invalid', 'not a valid host name');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return options.allowLoopback || options.allowlist?.admitsName(name, options.port ?? 0)
      ? allowed
      : refuse('loopback');
  }
  if (metadataNames.has(name)) return refuse('metadata');
  return allowed;
}

/** Checks an IP address, e.g. one DNS returned. Anything that is not an IP address is refused. */
export function checkIpAddress(address: string, options: AddressPolicyOptions = {}): AddressVerdict {
  const host = normalizeHost(address);
  if (host?.kind !== 'ip') return refuse('invalid');
  return checkIp(host.address, options);
}

/**
 * Checks a host: an IP address completely, a name by the rules for names only (`localhost`,
 * metadata names). The addresses a name resolves to must be checked with `checkIpAddress`.
 */
export function checkHost(host: string | Host, options: AddressPolicyOptions = {}): AddressVerdict {
  const normalized = typeof host === 'string' ? normalizeHost(host) : host;
  if (!normalized) return refuse('invalid', 'not a valid host');
  return normalized.kind === 'ip'
    ? checkIp(normalized.address, options)
    : checkName(normalized.hostname, options);
}

/** The port a URL connects to: its own, or the scheme's. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** `Request to <host> refused: it is a loopback address` (or `it resolves to ...` for a name). */
export function refusalMessage(hostname: string, refusal: AddressRefusal, resolved = false): string {
  return `Request to ${hostname} refused: it ${resolved ? 'resolves to' : 'is'} ${refusal.description}`;
}

/**
 * Checks a URL before anything is resolved: http or https only, no credentials, and a host that
 * `checkHost` allows. A name that passes still has to have its addresses checked.
 */
export function checkUrl(input: string | URL, options: AddressPolicyOptions = {}): UrlCheck {
  let url: URL;
  try {
    url = new URL(typeof input === 'string' ? input : input.href);
  } catch {
    return { allowed: false, category: 'invalid-url', message: 'Request refused: the URL is not valid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      allowed: false,
      category: 'scheme',
      message: `Request refused: only http and https URLs are allowed, not ${url.protocol}`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      allowed: false,
      category: 'credentials',
      message: `Request to ${url.hostname} refused: credentials in the URL are not allowed; send an Authorization header instead`,
    };
  }
  const host = hostFromHostname(url.hostname);
  if (!host)
    return { allowed: false, category: 'invalid-url', message: 'Request refused: the URL has no valid host' };
  const verdict = checkHost(host, { ...options, port: portOf(url) });
  if (!verdict.allowed) {
    return { allowed: false, category: verdict.category, message: refusalMessage(url.hostname, verdict) };
  }
  return { allowed: true, url, host };
}
