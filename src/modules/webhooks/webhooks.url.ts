import { lookup as dnsLookup, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The only addresses a webhook may reach unless WEBHOOK_ALLOW_PRIVATE is set: global unicast.
 * ipaddr.js names the special-purpose ranges (its `range()` is 'unicast' for none of them):
 * loopback, private, link-local (cloud metadata lives there), CGNAT, unspecified, broadcast,
 * multicast, reserved, documentation and benchmarking for IPv4; for IPv6 also unique local,
 * site-local, discard 100::/64, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16 and Teredo
 * 2001::/32 (both carry an IPv4 address that may be private), SIIT ::ffff:0:0:0/96, ORCHID,
 * segment routing. IPv6 must moreover lie in 2000::/3, the global unicast space, which also
 * excludes IPv4-compatible ::/96 and unassigned space. IPv4-mapped ::ffff:0:0/96 is refused
 * whatever IPv4 address it carries: a webhook host reachable over IPv4 is reached at that address.
 * Returns the name of the range that forbids the address, or null when it is allowed.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export function forbiddenRange(address: string): string | null {
  if (isIP(address) === 0) return 'not an IP address';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range === 'ipv4Mapped') {
    const embedded = (parsed as ipaddr.IPv6).toIPv4Address().range();
    return embedded === 'unicast' ? 'ipv4Mapped' : `ipv4Mapped ${embedded}`;
  }
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'outside 2000::/3';
  return null;
}

export function isForbiddenAddress(address: string): boolean {
  return forbiddenRange(address) !== null;
}

/** `example.com.` and `example.com` name the same host; the check judges the name without its root dot. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

const LOCAL_NAMES = /^(localhost|.*\.localhost|localhost\.localdomain|.*\.local|.*\.internal|.*\.home\.arpa)$/i;

/**
 * What the SSRF guard lets through beyond https to global unicast addresses, for local development
 * and tests: `insecure` (WEBHOOK_ALLOW_INSECURE) plain `http://`; `private` (WEBHOOK_ALLOW_PRIVATE)
 * loopback, private, link-local and reserved addresses and local host names. Each alone lifts only
 * its own check.
 */
export interface TargetPolicy {
  insecure: boolean;
  private: boolean;
}

export const targetPolicy = (config: { webhookAllowInsecure: boolean; webhookAllowPrivate: boolean }): TargetPolicy => ({
  insecure: config.webhookAllowInsecure,
  private: config.webhookAllowPrivate,
});

function schemeProblem(url: URL, policy: TargetPolicy): string | null {
  if (url.protocol === 'https:' || (policy.insecure && url.protocol === 'http:')) return null;
  return policy.insecure ? 'must use http or https' : 'must use https';
}

/**
 * Checks a webhook URL when staff set it. Returns a reason to refuse, or null. Hostnames are
 * checked again on the resolved address at delivery time (DNS can change after this check).
 */
export function webhookUrlProblem(raw: string, policy: TargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const scheme = schemeProblem(url, policy);
  if (scheme) return scheme;
  if (url.username || url.password) return 'must not carry credentials';
  const host = bareHost(url);
  if (host === '') return 'must name a host';
  if (policy.private) return null;
  if (isIP(host))
    return isForbiddenAddress(host) ? 'must not point at a loopback, private, link-local or reserved address (only global unicast addresses)' : null;
  if (LOCAL_NAMES.test(host)) return 'must not point at a local host name';
  return null;
}

/** A delivery refused by the SSRF guard, before or while connecting. */
export class ForbiddenTargetError extends Error {
  readonly code = 'FORBIDDEN_ADDRESS';
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` given to every outgoing webhook connection: resolves as usual, then refuses when
 * any resolved address is forbidden. Checking here, on the address actually connected to, is what
 * stops DNS rebinding (a name that was public when staff set it and is private now).
 */
export function guardedLookup(resolve: typeof dnsLookup = dnsLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const bad = list.find((a) => isForbiddenAddress(a.address));
      if (bad) {
        const range = forbiddenRange(bad.address);
        return callback(
          new ForbiddenTargetError(`${hostname} resolves to ${bad.address}, a loopback, private, link-local or reserved address (${range})`),
          '',
          0,
        );
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options?.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The `lookup` of outgoing webhook connections under WEBHOOK_ALLOW_PRIVATE: resolves as usual and
 * refuses nothing, but adds to `privateNames` every name that resolved to a forbidden address.
 */
export function recordingLookup(privateNames: Set<string>, resolve: typeof dnsLookup = dnsLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      if (list.some((a) => isForbiddenAddress(a.address))) {
        if (privateNames.size >= 10_000) privateNames.clear();
        privateNames.add(hostname);
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options?.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The check made before each delivery, with what can be judged without DNS: scheme, credentials
 * and IP literals (Node does not call `lookup` for an IP literal, so it is judged here). Returns a
 * reason to refuse, or null.
 */
export function deliveryTargetProblem(url: URL, policy: TargetPolicy): string | null {
  if (schemeProblem(url, policy)) return `${url.protocol} URLs are not allowed; use https`;
  if (policy.private) return null;
  const host = bareHost(url);
  const range = isIP(host) ? forbiddenRange(host) : null;
  if (range) return `${host} is a loopback, private, link-local or reserved address (${range})`;
  // Local names are judged on what they resolve to (guardedLookup), like every other name.
  return null;
}
