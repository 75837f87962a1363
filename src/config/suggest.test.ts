import assert from 'node:assert/strict';
import { test } from 'node:test';
import { suggest } from './suggest.js';

test('suggest: the allowed word a key is probably a misspelling of (case, "_" and "-" aside), or nothing', () => {
  const keys = ['command', 'args', 'env', 'envFile', 'url', 'headers', 'startupTimeout', 'mcpServers', 'servers'];
  assert.equal(suggest('comand', keys), 'command');
  assert.equal(suggest('commnad', keys), 'command', 'two letters swapped');
  assert.equal(suggest('startup_timeout', keys), 'startupTimeout');
  assert.equal(suggest('MCPServers', keys), 'mcpServers');
  assert.equal(suggest('env_file', keys), 'envFile');
  assert.equal(suggest('header', keys), 'headers');
  assert.equal(suggest('urls', keys), 'url');
  assert.equal(suggest('colour', keys), undefined);
  assert.equal(suggest('x', keys), undefined);
});
