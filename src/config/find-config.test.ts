import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir, write } from './_test/config-files.js';
import { findConfigFile } from './find-config.js';

test('findConfigFile: the first mcp-chain.config.* in the directory, TypeScript first, TOML last; none: undefined', () => {
  const dir = tempDir();
  assert.equal(findConfigFile(dir), undefined);
  write(dir, 'mcp-chain.config.toml', '');
  assert.equal(findConfigFile(dir), join(dir, 'mcp-chain.config.toml'));
  write(dir, 'mcp-chain.config.yaml', '');
  write(dir, 'mcp-chain.config.json', '');
  assert.equal(findConfigFile(dir), join(dir, 'mcp-chain.config.json'));
  write(dir, 'mcp-chain.config.ts/not-a-file', '');
  assert.equal(findConfigFile(dir), join(dir, 'mcp-chain.config.json'), 'a directory of that name is no config file');
  write(dir, 'mcp-chain.config.mjs', '');
  assert.equal(findConfigFile(dir), join(dir, 'mcp-chain.config.mjs'));
});
