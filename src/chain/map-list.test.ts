import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../log/stderr-logger.js';
import type { McpMessage, Reply } from '../message/jsonrpc.js';
import type { Downstream } from '../core/downstream.js';
import type { SessionInfo } from '../core/session-info.js';
import { createContext, type Direction } from './context.js';
import { mapList } from './map-list.js';

const session: SessionInfo = { id: 's', protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: undefined, log: silentLogger };
const downstream: Downstream = { request: () => Promise.resolve({}), notify: () => Promise.resolve() };
const context = (message: McpMessage, direction: Direction = 'toUpstream') =>
  createContext({ message, kind: 'request', direction, session, downstream });
const upper = mapList('tools', (tool) => ({ ...tool, name: tool.name.toUpperCase() }));

describe('mapList()', () => {
  test('other methods pass straight through: the reply is the very promise next() returned, nothing awaited', () => {
    const forwarded: Promise<Reply> = Promise.resolve({ content: [] });
    assert.equal(upper(context({ method: 'tools/call', params: { name: 'a' } }), () => forwarded), forwarded);
    assert.equal(upper(context({ method: 'tools/list' }, 'toDownstream'), () => forwarded), forwarded);
  });

  test('its own list is mapped item by item, the rest of the page kept', async () => {
    const page = { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'c2' };
    assert.deepEqual(await upper(context({ method: 'tools/list' }), () => Promise.resolve(page)), {
      tools: [{ name: 'A', inputSchema: { type: 'object' } }],
      nextCursor: 'c2',
    });
  });

  test('a reply without the list key is passed on as it is', async () => {
    const odd = { something: 'else' };
    assert.equal(await upper(context({ method: 'tools/list' }), () => Promise.resolve(odd)), odd);
  });
});
