import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serveFlagsOf } from './serve-flags-of.js';
import { UsageError } from './usage-error.js';

describe('--drain-ms', () => {
  test('is read once, the same on every serving command: a whole number of milliseconds, 0 included; absent, undefined (the default applies)', () => {
    assert.equal(serveFlagsOf(undefined, { 'drain-ms': '2500' }).drainMs, 2500);
    assert.equal(serveFlagsOf('run', { 'drain-ms': '0' }).drainMs, 0);
    assert.equal(serveFlagsOf('serve', { 'drain-ms': '100' }).drainMs, 100);
    assert.equal(serveFlagsOf('serve', {}).drainMs, undefined);
  });

  test('anything else is a usage error of the command, naming the option', () => {
    for (const value of ['-1', '1.5', 'soon', '']) {
      for (const command of [undefined, 'run', 'serve']) {
        assert.throws(
          () => serveFlagsOf(command, { 'drain-ms': value }),
          (error: unknown) => error instanceof UsageError && error.command === command && /--drain-ms must be a whole number/.test(error.message),
        );
      }
    }
  });
});

describe('the HTTP flags', () => {
  test('each one given is read, each one absent stays undefined (a config file may say it)', () => {
    const flags = serveFlagsOf('serve', { http: '0.0.0.0:8080', 'token-env': ['A'], 'session-ttl': '60', 'max-sessions': '5' });
    assert.deepEqual(flags.http, {
      listen: { host: '0.0.0.0', port: 8080 },
      sse: undefined,
      tokenEnv: ['A'],
      allowUnauthenticated: undefined,
      allowedOrigins: undefined,
      allowedHosts: undefined,
      sessionTtlMs: 60_000,
      maxSessions: 5,
      maxStartingSessions: undefined,
    });
    assert.deepEqual(serveFlagsOf(undefined, { http: '[::1]:0' }).http.listen, { host: '::1', port: 0 });
    assert.deepEqual(serveFlagsOf(undefined, { http: '9000' }).http.listen, { host: '127.0.0.1', port: 9000 });
  });
});
