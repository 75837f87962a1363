/**
 * Whether listening on `host` keeps the endpoint on this machine: `localhost`, 127.0.0.0/8, `::1`
 * (also written out, or as `::ffff:127.x.x.x`). Anything else (0.0.0.0, ::, a LAN address, any
 * other name, even one that resolves to 127.0.0.1 today) may be reached from elsewhere. No
 * `node:net` here: this runs on every start, before the server is spawned (the CLI refuses such a bind with its own message first).
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name.replace(/^(?:0{1,4}:){5}ffff:/, '::ffff:'));
  if (v4) return v4[1] === '127' && v4.slice(2).every((part) => Number(part) <= 255);
  return name.includes(':') && expandedIPv6(name) === '0:0:0:0:0:0:0:1';
}

/** The eight groups of an IPv6 address without leading zeros and `::`, or undefined if it is none. */
function expandedIPv6(address: string): string | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const [head = '', tail] = halves;
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => String(parseInt(g, 16))).join(':');
}
