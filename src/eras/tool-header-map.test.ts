import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ToolHeaderMap } from './tool-header-map.js';

const REGION = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } };
const INVALID = { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } };
const PLAIN = { type: 'object', properties: { q: { type: 'string' } } };

describe('ToolHeaderMap: the x-mcp-header declarations of a server\'s tools', () => {
  test('a tool that declares headers has them; one that declares none, or is unknown, has none; invalid declarations are undefined', () => {
    const map = new ToolHeaderMap();
    map.learn({ tools: [{ name: 'route', inputSchema: REGION }, { name: 'plain', inputSchema: PLAIN }, { name: 'bad', inputSchema: INVALID }] }, true);
    assert.deepEqual(map.headersOf('route'), [{ name: 'Region', path: ['region'] }]);
    assert.deepEqual(map.headersOf('plain'), []);
    assert.deepEqual(map.headersOf('unknown'), []);
    assert.equal(map.headersOf('bad'), undefined);
  });

  test('the list is complete only after its last page; a list change forgets everything', () => {
    const map = new ToolHeaderMap();
    map.learn({ tools: [{ name: 'route', inputSchema: REGION }], nextCursor: '2' }, false);
    assert.equal(map.complete, false);
    map.learnNone(true);
    assert.equal(map.complete, true);
    assert.deepEqual(map.headersOf('route'), [{ name: 'Region', path: ['region'] }], 'a page without declarations keeps what earlier pages said');
    map.forget();
    assert.equal(map.complete, false);
    assert.deepEqual(map.headersOf('route'), []);
  });

  test('a tool listed again without its declaration loses it; malformed pages and items are ignored', () => {
    const map = new ToolHeaderMap();
    map.learn({ tools: [{ name: 'route', inputSchema: REGION }] }, true);
    map.learn({ tools: [{ name: 'route', inputSchema: PLAIN }, null, 7, { inputSchema: REGION }] }, true);
    assert.deepEqual(map.headersOf('route'), []);
    map.learn({ tools: 'nope' }, true);
    assert.equal(map.complete, true);
  });
});
