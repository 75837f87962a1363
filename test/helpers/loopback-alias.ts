import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * A host name other than `localhost` that resolves to loopback only (this machine's own name, or
 * another alias of 127.0.0.1 in /etc/hosts). mcp-chain counts any such name as beyond loopback,
 * since it may resolve elsewhere tomorrow; tests bind to it to exercise that path while the socket
 * still listens on this machine only (test servers never listen beyond loopback).
 */
export async function loopbackAlias(): Promise<string> {
  const hosts = readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter(([address]) => address !== undefined && /^127\./.test(address))
    .flatMap(([, ...names]) => names);
  for (const name of [hostname(), ...hosts]) {
    if (name === '' || name.toLowerCase() === 'localhost') continue;
    try {
      const addresses = await lookup(name, { all: true });
      if (addresses.length > 0 && addresses.every((a) => a.address.startsWith('127.') || a.address === '::1')) return name;
    } catch {
      // does not resolve: try the next
    }
  }
  throw new Error('no host name other than localhost resolves to loopback only here (this machine\'s name, or an alias of 127.0.0.1 in /etc/hosts)');
}
