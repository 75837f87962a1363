const INHERITED = [
  'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR',
  // Certificates and proxies: a server behind a corporate proxy (npx fetching it, its own calls)
  // fails without them, the most common complaint about the official SDK's defaults.
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy',
];

/**
 * The environment a stdio upstream gets unless told to inherit ours: only the variables a program
 * needs to run (as the official SDK does, plus the proxy and certificate settings it needs to
 * reach the network), so secrets in our environment do not leak to servers.
 * Shell functions (values starting with `()`) are left out.
 */
export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}
