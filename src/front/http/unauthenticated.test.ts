import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import type { Logger, LogFields } from '../../log/logger.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { local } from '../../upstream/local.js';
import { loopbackAlias } from '../../../test/helpers/loopback-alias.js';
import { serveHttp } from './serve-http.js';

/** A logger that keeps its warnings. */
function warnings(): Logger & { lines: Array<[string, LogFields | undefined]> } {
  const lines: Array<[string, LogFields | undefined]> = [];
  const logger: Logger = { ...silentLogger, warn: (message, fields) => void lines.push([message, fields]), child: () => logger };
  return Object.assign(logger, { lines });
}

describe('serveHttp beyond loopback', () => {
  test('without auth it refuses to listen (a ChainError naming both fixes), and nothing is bound', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10', await loopbackAlias()]) {
      await assert.rejects(
        serveHttp(chain().to(local({})), { host, port: 0, log: silentLogger }),
        (error: unknown) => error instanceof ChainError && error.code === 'CONFIG' && /give auth, or allowUnauthenticated: true/.test(error.message),
        host,
      );
    }
    // An empty token list is no auth at all.
    await assert.rejects(serveHttp(chain().to(local({})), { host: '0.0.0.0', port: 0, auth: { tokens: [] }, log: silentLogger }), ChainError);
  });

  test('with allowUnauthenticated it listens and says so in one warning line naming the endpoint', async () => {
    const log = warnings();
    const front = await serveHttp(chain().to(local({})), { host: await loopbackAlias(), port: 0, allowUnauthenticated: true, log });
    try {
      const said = log.lines.filter(([message]) => /answers anyone/.test(message));
      assert.equal(said.length, 1);
      assert.equal(said[0]?.[1]?.url, front.url);
    } finally {
      await front.close();
    }
  });

  test('with a token, or on loopback, there is no warning', async () => {
    for (const options of [{ host: await loopbackAlias(), auth: { tokens: [{ id: 'a', token: 't0k3n-a' }] } }, { host: '127.0.0.1' }, { host: 'localhost' }]) {
      const log = warnings();
      const front = await serveHttp(chain().to(local({})), { ...options, port: 0, log });
      await front.close();
      assert.deepEqual(log.lines.filter(([message]) => /answers anyone/.test(message)), [], options.host);
    }
  });
});
