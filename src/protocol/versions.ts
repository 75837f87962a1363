import { isSupportedVersion, LATEST_PROTOCOL_VERSION, supportsBatches } from '../spec/versions.js';

export { supportsBatches };

/**
 * The version the chain offers when a client asks for `requested`: the same one when the chain
 * serves it, otherwise the latest it serves (the client then decides whether to go on).
 */
export function negotiateVersion(requested: string): string {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
