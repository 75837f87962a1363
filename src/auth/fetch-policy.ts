/**
 * @module
 * The rule for every URL the gateway fetches for OAuth (JWKS, introspection, and later metadata,
 * registration and token endpoints): URLs learned from the network must not turn the gateway into
 * a proxy towards its own network (SSRF). `https:` only; plain `http:` only to loopback (tests,
 * local development); never a link-local or cloud-metadata address, checked on the URL's host and
 * on every address its name resolves to (a name that resolves to a forbidden address, as in DNS
 * rebinding, is refused whatever the URL looks like).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/** Resolves a host name to all its addresses (default: `dns.promises.lookup` with `all: true`). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** How the rule is applied. */
export interface FetchPolicyOptions {
  /** Plain `http:` to loopback hosts (127.0.0.0/8, ::1, `localhost`). Default `true`; never to any other host. */
  readonly allowHttpLoopback?: boolean;
  /** The resolver (tests inject one). Default: the system resolver, every address. */
  readonly lookup?: HostLookup;
}

/** A URL the fetch policy refuses; the message names the URL's origin and the rule, never its query. */
export class FetchPolicyError extends Error {
  override name = 'FetchPolicyError';
}

/** The system resolver, every address, in the order it gives them. */
export const systemLookup: HostLookup = async (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

const forbidden = new BlockList();
// Link-local, which holds the cloud metadata address 169.254.169.254 (AWS, GCP, Azure, ...).
forbidden.addSubnet('169.254.0.0', 16, 'ipv4');
// "This network" / unspecified: 0.0.0.0 connects to the host itself.
forbidden.addSubnet('0.0.0.0', 8, 'ipv4');
// Alibaba Cloud's metadata address.
forbidden.addAddress('100.100.100.200', 'ipv4');
// Multicast and broadcast.
forbidden.addSubnet('224.0.0.0', 4, 'ipv4');
forbidden.addAddress('255.255.255.255', 'ipv4');
forbidden.addSubnet('fe80::', 10, 'ipv6');
// AWS's IPv6 metadata address.
forbidden.addAddress('fd00:ec2::254', 'ipv6');
forbidden.addAddress('::', 'ipv6');
forbidden.addSubnet('ff00::', 8, 'ipv6');
// The same IPv4 ranges written as IPv4-mapped IPv6 addresses.
forbidden.addSubnet('::ffff:169.254.0.0', 112, 'ipv6');
forbidden.addSubnet('::ffff:0.0.0.0', 104, 'ipv6');
forbidden.addAddress('::ffff:100.100.100.200', 'ipv6');
forbidden.addSubnet('::ffff:224.0.0.0', 100, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Host names of cloud metadata services, refused before any lookup. */
const metadataHostnames = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data']);

function family(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/** Whether an IP address is one the gateway never fetches from (link-local, cloud metadata, unspecified, multicast). */
export function isForbiddenAddress(address: string): boolean {
  const type = family(address);
  return type === undefined ? true : forbidden.check(address, type);
}

/** Whether an IP address is loopback (127.0.0.0/8, ::1, or their IPv4-mapped forms). */
export function isLoopbackAddress(address: string): boolean {
  const type = family(address);
  return type !== undefined && loopback.check(address, type);
}

/** The URL's host without IPv6 brackets and without a trailing dot, lowercased. */
function bareHost(url: URL): string {
  const host = url.hostname.toLowerCase();
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Where a URL points, for messages: its origin and path, never its query or credentials. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * The checks that need no resolver: scheme, credentials, literal addresses and known metadata
 * names. Returns the parsed URL; throws a `FetchPolicyError`. Use it where the fetch itself
 * happens elsewhere (a URL checked at construction).
 */
export function checkUrlShape(input: string | URL, options: FetchPolicyOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchPolicyError('not a valid URL');
  }
  const where = describeUrl(url);
  if (url.username !== '' || url.password !== '') {
    throw new FetchPolicyError(`${url.protocol}//${url.host}: credentials in a URL are not allowed`);
  }
  const host = bareHost(url);
  if (url.protocol === 'http:') {
    const loopbackHost = isLocalhostName(host) || isLoopbackAddress(host);
    if (!loopbackHost || options.allowHttpLoopback === false) {
      throw new FetchPolicyError(`${where}: plain http is allowed only to loopback; use https`);
    }
  } else if (url.protocol !== 'https:') {
    throw new FetchPolicyError(`${where}: only https URLs are fetched`);
  }
  if (metadataHostnames.has(host)) throw new FetchPolicyError(`${where}: a cloud metadata host is never fetched`);
  if (family(host) !== undefined && isForbiddenAddress(host)) {
    throw new FetchPolicyError(`${where}: a link-local, metadata or unspecified address is never fetched`);
  }
  return url;
}

/**
 * Checks the addresses a URL's host resolved to: none forbidden, and for plain `http:` every one
 * loopback. Throws a `FetchPolicyError`.
 */
export function checkResolvedAddresses(url: URL, addresses: readonly ResolvedAddress[]): void {
  const where = describeUrl(url);
  if (addresses.length === 0) throw new FetchPolicyError(`${where}: the host resolved to no address`);
  for (const { address } of addresses) {
    if (isForbiddenAddress(address)) {
      throw new FetchPolicyError(`${where}: the host resolves to a link-local, metadata or unspecified address`);
    }
    if (url.protocol === 'http:' && !isLoopbackAddress(address)) {
      throw new FetchPolicyError(`${where}: plain http is allowed only to loopback, and the host resolves elsewhere`);
    }
  }
}

/**
 * The whole rule: the URL's shape, then every address its host resolves to. Resolves to the
 * parsed URL and the addresses (connect to these, not to a second resolution, so a name cannot
 * change its answer between the check and the connection); rejects with a `FetchPolicyError`, or
 * the resolver's own error when the name does not resolve.
 */
export async function checkFetchUrl(
  input: string | URL,
  options: FetchPolicyOptions = {},
): Promise<{ url: URL; addresses: readonly ResolvedAddress[] }> {
  const url = checkUrlShape(input, options);
  const host = bareHost(url);
  const literal = family(host);
  const addresses =
    literal !== undefined
      ? [{ address: host, family: literal === 'ipv4' ? 4 : 6 }]
      : await (options.lookup ?? systemLookup)(host);
  checkResolvedAddresses(url, addresses);
  return { url, addresses };
}
