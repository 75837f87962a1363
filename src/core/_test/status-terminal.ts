import { silentLogger } from '../../log/stderr-logger.js';
import type { Downstream } from '../downstream.js';
import type { SessionInfo } from '../session-info.js';
import { StatusReporter } from '../status-reporter.js';
import type { Upstream, UpstreamConnection } from '../upstream.js';

/**
 * For tests of what passes status events on: an Upstream whose connections answer every request
 * with `{}` and report whatever the test tells `status` (one reporter for all its connections).
 */
export class StatusTerminal implements Upstream {
  readonly status = new StatusReporter(silentLogger);
  connects = 0;

  connect(): UpstreamConnection {
    this.connects++;
    return {
      request: () => Promise.resolve({}),
      notify: () => Promise.resolve(),
      close: () => Promise.resolve(),
      onStatus: (listener) => this.status.subscribe(listener),
    };
  }
}

/** A downstream that takes everything and answers `{}`. */
export const quietDownstream: Downstream = {
  request: () => Promise.resolve({}),
  notify: () => Promise.resolve(),
};

/** A session as an upstream sees it, with a silent log. */
export function testSession(id = 'test'): SessionInfo {
  return { id, protocolVersion: undefined, clientInfo: undefined, clientCapabilities: undefined, log: silentLogger };
}
