// How `mcp-chain run <file>.ts` loads a TypeScript chain file: compiled by esbuild (with the local
// files it imports) into a hidden file that is removed at once, and cached by content, so a start
// whose sources did not change skips the compiler. Each test starts the real CLI on a chain file in
// a temporary directory, with a cache directory of its own.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { proxyMain, repoRoot } from '../helpers/targets.js';

const T = { timeout: 30_000 };
// Inside the repository, so that the chain files' `import 'mcp-chain'` resolves to this package.
mkdirSync(join(repoRoot, '.cache'), { recursive: true });
const work = mkdtempSync(join(repoRoot, '.cache', 'loading-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

let projects = 0;
/** A directory with a chain file whose one tool answers with what `./answer.ts` exports. */
function project(answer: string): { dir: string; file: string; cache: string } {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(dir);
  writeAnswer(dir, answer);
  const file = join(dir, 'gateway.ts');
  writeFileSync(
    file,
    [
      "import { chain, local } from 'mcp-chain';",
      "import { answer } from './answer.js';",
      "const server = local({ name: 'loading-test', version: '1.0.0', tools: [{ name: 'answer', inputSchema: { type: 'object' }, handler: () => ({ content: [{ type: 'text', text: answer }] }) }] });",
      'export default chain().to(server);',
    ].join('\n'),
  );
  return { dir, file, cache: join(dir, '..', `cache-${projects}`) };
}

function writeAnswer(dir: string, answer: string): void {
  writeFileSync(join(dir, 'answer.ts'), `export const answer: string = ${JSON.stringify(answer)};\n`);
}

const lines = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'answer', arguments: {} } },
];

/** Runs the CLI on `file`, calls the tool, ends stdin; the tool's text, or the CLI's failure. */
function callAnswer(file: string, cache: string): Promise<{ text?: string; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [proxyMain, 'run', file], { env: { PATH: process.env.PATH ?? '', MCP_CHAIN_CACHE_DIR: cache }, timeout: 25_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      const answer = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { id?: number; result?: { content?: Array<{ text?: string }> } })
        .find((message) => message.id === 2);
      const text = answer?.result?.content?.[0]?.text;
      resolve(text === undefined ? { code, stderr } : { text, code, stderr });
    });
    child.once('error', reject);
    // Answers come in order: end stdin once the tool's answer is out.
    child.stdin?.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"id":2')) child.stdin?.end();
    });
  });
}

/** The one entry of a cache directory. */
function entryOf(cache: string): { path: string; entry: { code: string; inputs: Record<string, string> } } {
  const names = readdirSync(cache).filter((name) => name.endsWith('.json'));
  assert.equal(names.length, 1, `one entry in ${cache}: ${names.join(', ')}`);
  const path = join(cache, names[0] ?? '');
  return { path, entry: JSON.parse(readFileSync(path, 'utf8')) as { code: string; inputs: Record<string, string> } };
}

describe('mcp-chain run <file>.ts', () => {
  test('compiles the file with the local files it imports, serves it, and leaves nothing beside it', T, async () => {
    const { dir, file, cache } = project('forty-two');
    assert.deepEqual(await callAnswer(file, cache), { text: 'forty-two', code: 0, stderr: '' });
    assert.deepEqual(readdirSync(dir).sort(), ['answer.ts', 'gateway.ts'], 'no compiled file is left behind');
    const { entry } = entryOf(cache);
    assert.deepEqual(Object.keys(entry.inputs).sort(), [join(dir, 'answer.ts'), file], 'the entry lists every local input');
  });

  test('a second start with the same sources uses the cached compilation, not the compiler', T, async () => {
    const { file, cache } = project('fresh');
    await callAnswer(file, cache);
    // Plant a different (valid) compiled code under the same input hashes: only a start that
    // takes the cache can serve it.
    const { path, entry } = entryOf(cache);
    writeFileSync(path, JSON.stringify({ ...entry, code: entry.code.replace('"fresh"', '"from the cache"') }));
    assert.equal((await callAnswer(file, cache)).text, 'from the cache');
  });

  test('a change to any local input (here an imported file) compiles again and replaces the entry', T, async () => {
    const { dir, file, cache } = project('one');
    await callAnswer(file, cache);
    writeAnswer(dir, 'two');
    assert.equal((await callAnswer(file, cache)).text, 'two');
    assert.match(entryOf(cache).entry.code, /"two"/);
  });

  test('a cache directory others may write to is not used (its code would run as ours)', T, async () => {
    const { file, cache } = project('honest');
    await callAnswer(file, cache);
    const { path, entry } = entryOf(cache);
    writeFileSync(path, JSON.stringify({ ...entry, code: entry.code.replace('"honest"', '"planted"') }));
    chmodSync(cache, 0o777);
    assert.equal((await callAnswer(file, cache)).text, 'honest');
  });

  test('a damaged cache entry (not JSON, wrong shape) is a miss: compiled again, and the entry replaced', T, async () => {
    const { file, cache } = project('sound');
    await callAnswer(file, cache);
    const { path } = entryOf(cache);
    for (const damage of ['{"code":', '{"code":42,"inputs":null}', '[]']) {
      writeFileSync(path, damage);
      assert.equal((await callAnswer(file, cache)).text, 'sound', damage);
      assert.match(entryOf(cache).entry.code, /"sound"/);
    }
  });

  test("the file's `import 'mcp-chain'` resolves to the package's bundle, whose shared chunk the CLI's serving code loads too", T, async () => {
    const { dir, file, cache } = project('unused');
    writeFileSync(join(dir, 'answer.ts'), "export const answer: string = import.meta.resolve('mcp-chain');\n");
    assert.equal((await callAnswer(file, cache)).text, pathToFileURL(join(repoRoot, 'dist', 'bundle', 'index.js')).href);
  });

  test('a TypeScript error: exit 2 and one line naming file, line and column', T, async () => {
    const { file, cache } = project('unused');
    writeFileSync(file, 'export default chain(;\n');
    const { code, stderr, text } = await callAnswer(file, cache);
    assert.equal(text, undefined);
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.ok(stderr.startsWith(`mcp-chain: cannot load ${file}: ${file}:1:22: `), stderr);
  });
});
