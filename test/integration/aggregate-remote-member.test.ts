// A remote (Streamable HTTP) member of an aggregate that is not there when the client connects:
// the others serve, calls to it name it, and once it listens it joins (list_changed) and answers.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { aggregate } from '../../src/upstream/aggregate/aggregate.js';
import { http } from '../../src/upstream/http/http.js';
import { local } from '../../src/upstream/local.js';
import { harness, type Harness } from '../../src/testing/harness.js';
import { startHttpMember, type HttpMember } from '../helpers/gateway.js';

const T = { timeout: 60_000 };
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

describe('aggregate: a remote member that comes later', () => {
  test('down at initialize (connection refused), it is named on calls, and joins when its server listens', T, async () => {
    // A port that was free a moment ago: nothing listens there when the client connects.
    const probe = await startHttpMember();
    const url = probe.url;
    const port = Number(new URL(url).port);
    await probe.stop();

    const gateway = aggregate(
      [
        { name: 'remote', upstream: http({ url }) },
        { name: 'here', upstream: local({ tools: [{ name: 'ping_me', handler: () => ({ content: [{ type: 'text', text: 'pong' }] }) }] }) },
      ],
      { retry: { initialDelayMs: 100, maxDelayMs: 200 } },
    );
    const h: Harness = await harness(gateway);
    closers.push(() => h.close());
    h.notify('notifications/initialized');

    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['here__ping_me']);
    await assert.rejects(h.request('tools/call', { name: 'remote__test_simple_text', arguments: {} }), /Server "remote" is unavailable/);

    const member: HttpMember = await startHttpMember(port);
    closers.push(() => member.stop());
    await h.waitFor((m) => m.method === 'notifications/tools/list_changed' && h.notifications('notifications/tools/list_changed').length >= 1, { timeoutMs: 20_000 });
    const names = (await h.request('tools/list')).tools.map((t) => t.name);
    assert.ok(names.includes('remote__test_simple_text'), names.join(', '));
    const result = await h.request('tools/call', { name: 'remote__test_simple_text', arguments: {} });
    assert.equal(result.isError ?? false, false);
  });
});
