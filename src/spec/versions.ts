/**
 * MCP protocol revisions mcp-chain speaks, newest first. Runtime constants, no dependencies.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION = '2025-11-25' satisfies ProtocolVersion;

export function isSupportedVersion(v: unknown): v is ProtocolVersion {
  return typeof v === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v);
}

/**
 * Whether JSON-RPC batches (an array of messages in one frame) are allowed in revision `v`.
 * Only 2025-03-26 allowed them: 2024-11-05 did not have them and 2025-06-18 removed them.
 */
export function supportsBatches(v: string): boolean {
  return v === '2025-03-26';
}
