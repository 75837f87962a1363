// The transports a suite runs on: stdio and Streamable HTTP (`--http`). `forEachTransport` writes
// the matrix once, so a suite that must hold on both is declared once and run twice, its names
// telling the two runs apart.

/** One transport of the matrix, as a test needs it. */
export interface Transport {
  /** `stdio` or `http`: for test names and paths (`through mcp-chain serve (http)`). */
  readonly name: 'stdio' | 'http';
  /** True for HTTP: what `gatewayTarget(file, { http })` takes. */
  readonly http: boolean;
  /** The command-line flag that selects it, `''` for stdio and `' --http'` for HTTP, for test names. */
  readonly flag: '' | ' --http';
}

/** stdio first, then HTTP. */
export const TRANSPORTS: readonly Transport[] = [
  { name: 'stdio', http: false, flag: '' },
  { name: 'http', http: true, flag: ' --http' },
];

/**
 * Declares a suite (or a test) once per transport: `forEachTransport((transport) => describe(…))`.
 * The callback runs at once, in declaration order, as a `for` loop would.
 */
export function forEachTransport(declare: (transport: Transport) => void): void {
  for (const transport of TRANSPORTS) declare(transport);
}
