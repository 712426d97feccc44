/**
 * ipaddr.js, the one parser of IP addresses of the outbound guard (the address policy and the
 * allowlist). It is kept out of the bundles and installed beside the functions that check addresses
 * (lib/bundling.ts), and loaded on first use, so a route that never checks one never loads it.
 */
import { createRequire } from 'node:module';
import type * as Ipaddr from 'ipaddr.js';

export type { Ipaddr };

let ipaddrModule: typeof Ipaddr | undefined;

export function loadIpaddr(): typeof Ipaddr {
  // A CommonJS bundle has no import.meta.url and requires ipaddr.js from beside it; the sources
  // (and the local server's ES module build) require it from node_modules.
  ipaddrModule ??= (
    import.meta.url ? createRequire(import.meta.url)('ipaddr.js') : require('ipaddr.js')
  ) as typeof Ipaddr;
  return ipaddrModule;
}
