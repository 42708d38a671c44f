import { lookup as dnsLookup, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Address ranges a webhook may never reach unless WEBHOOK_ALLOW_INSECURE is set: loopback,
 * private, link-local (cloud metadata lives there), CGNAT, unspecified, multicast and reserved,
 * for IPv4, IPv6 and IPv4-mapped IPv6.
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isForbiddenV4(address);
  if (family === 6) return isForbiddenV6(address);
  return true;
}

function isForbiddenV4(address: string): boolean {
  const [a, b] = address.split('.').map(Number);
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // CGNAT
    (a === 169 && b === 254) || // link-local, metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

function expandV6(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // a trailing dotted IPv4 part becomes two groups
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  if (tail === undefined && missing !== 0) return null;
  const groups = [...headParts, ...Array(tail === undefined ? 0 : missing).fill('0'), ...tailParts].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function isForbiddenV6(address: string): boolean {
  const g = expandV6(address);
  if (!g) return true;
  const allZeroPrefix = g.slice(0, 5).every((x) => x === 0);
  if (allZeroPrefix && g[5] === 0xffff) {
    // IPv4-mapped: judge the embedded IPv4 address
    return isForbiddenV4(`${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`);
  }
  if (g.every((x, i) => (i < 7 ? x === 0 : x <= 1))) return true; // :: and ::1
  if (allZeroPrefix && g[5] === 0) return true; // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return true; // NAT64 can reach private IPv4
  const first = g[0];
  return (
    (first & 0xfe00) === 0xfc00 || // unique local
    (first & 0xffc0) === 0xfe80 || // link-local
    (first & 0xffc0) === 0xfec0 || // site-local
    (first & 0xff00) === 0xff00 || // multicast
    first === 0x2001 && g[1] === 0x0db8 // documentation
  );
}

/**
 * Checks a webhook URL when staff set it. Returns a reason to refuse, or null. Hostnames are
 * checked again on the resolved address at delivery time (DNS can change after this check).
 */
export function webhookUrlProblem(raw: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    return allowInsecure ? 'must use http or https' : 'must use https';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (allowInsecure) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isForbiddenAddress(host)) return 'must not point at a loopback, private, link-local or reserved address';
  if (/^(localhost|.*\.localhost|.*\.local|.*\.internal)$/i.test(host)) return 'must not point at a local host name';
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
      if (bad) return callback(new ForbiddenTargetError(`${hostname} resolves to ${bad.address}, a loopback, private, link-local or reserved address`), '', 0);
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
export function deliveryTargetProblem(url: URL, allowInsecure: boolean): string | null {
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return `${url.protocol} URLs are not allowed; use https`;
  if (allowInsecure) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isForbiddenAddress(host)) return `${host} is a loopback, private, link-local or reserved address`;
  return null;
}
