import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import { harness } from '../testing/harness.js';
import { local } from '../upstream/local.js';

const echo = local({
  name: 'echo-server',
  tools: [{ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) }],
});

describe('Session lifecycle', () => {
  test('initialize returns the negotiated version and the upstream capabilities', async () => {
    const h = await harness(chain().to(echo), { initialize: false });
    const result = await h.initialize('2025-06-18');
    assert.equal(result.protocolVersion, '2025-06-18');
    assert.deepEqual(result.capabilities, { tools: {} });
    assert.deepEqual(result.serverInfo, { name: 'echo-server', version: '0.0.0' });
    await h.close();
  });

  test('a tool call goes through and comes back', async () => {
    const h = await harness(chain().to(echo));
    const result = await h.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
    await h.close();
  });
});
