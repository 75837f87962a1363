import { chain } from '../chain/chain.js';
import { serveStdio } from '../front/serve-stdio.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { SessionOptions } from '../session/session.js';
import type { SpawnedServer } from '../upstream/spawn-server.js';
import { stdio } from '../upstream/stdio.js';
import type { Upstream } from '../upstream/upstream.js';
import { version, type CliRequest } from './args.js';
import { loadChainFile } from './load-chain-file.js';

/**
 * Serves what the command line asked for on stdio until the client goes away; resolves with the
 * exit code. `prestarted` is the server process the entry point already started.
 */
export async function serve(request: Extract<CliRequest, { kind: 'serve' }>, prestarted: SpawnedServer | undefined): Promise<number> {
  const log = stderrLogger(request.logLevel === undefined ? {} : { level: request.logLevel });
  const server = request.server && stdio({ ...request.server, ...(prestarted ? { prestarted } : {}) });
  let upstream: Upstream;
  let fileOptions: SessionOptions = {};
  if (request.file !== undefined) {
    const loaded = await loadChainFile(request.file);
    upstream = loaded.build(server);
    fileOptions = loaded.options;
  } else if (server) {
    upstream = chain().to(server);
  } else {
    return 2;
  }
  const { timeout, maxTimeout: max, maxMessageBytes, name } = request;
  const front = await serveStdio(upstream, {
    ...fileOptions,
    log,
    ...(name === undefined ? {} : { serverInfo: { name, version: version() } }),
    ...(timeout === undefined && max === undefined
      ? {}
      : { timeouts: { ...fileOptions.timeouts, ...(timeout === undefined ? {} : { request: timeout }), ...(max === undefined ? {} : { max }) } }),
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
  });
  await front.closed;
  await upstream.close?.();
  return 0;
}
