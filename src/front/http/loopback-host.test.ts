import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLoopbackHost } from './loopback-host.js';

test('isLoopbackHost: localhost, 127.0.0.0/8 and ::1 in any spelling stay on this machine; anything else may not', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LocalHost', '::1', '0:0:0:0:0:0:0:1', '0000::0001', '::ffff:127.0.0.1', '0:0:0:0:0:ffff:127.0.0.1']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'fe80::1', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', 'my-laptop', '128.0.0.1', '127.0.0.256', '1::1', '::1::', 'x::1', '::', '127.0.0.1.nip.io']) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});
