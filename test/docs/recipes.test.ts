// Every recipe of README.md and docs/ runs for real, so that a stale example fails `npm test`.
//
// A recipe is one or more fenced blocks after `<!-- recipe: <name> ... -->` markers
// (extract-recipes.ts). Each runs in a fresh folder outside the repository, set up as a user's
// would be after the README's first command: `mcp-chain` on the PATH (the built
// dist/cli/main.js), `mcp-chain` importable (as `npm link mcp-chain` or `npm i mcp-chain` makes
// it) and the reference servers installed (so `npx -y @modelcontextprotocol/server-everything`
// finds them without the network).
// - `sh` blocks: every line is an `mcp-chain` command. `validate` and `--help` must exit 0; any
//   other command serves, and the official SDK client connects to it (over stdio, or over HTTP
//   where the line says `--http <port>`: the port becomes 127.0.0.1:0 so that runs never collide)
//   and lists its tools (`tools=`, `hidden=`).
// - `file=` blocks are written to that file; a config file is checked with `mcp-chain validate`
//   and, with `tools=`, served with `mcp-chain serve`.
// - `ts` blocks with `run=exit` run with tsx to their end; with `run=stdio` they are a server.
// - Every `ts` block with `file=` is also type-checked (strict, NodeNext) as in a project of its own.
// Every wait is bounded, and no process is left in the recipe's folder when a recipe ends.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { describe, test } from 'node:test';
import { connectClient, withTimeout } from '../helpers/client.js';
import { eventually } from '../helpers/gateway.js';
import { proxyBuilt, proxyEnv, proxyMain, repoRoot, type Target } from '../helpers/targets.js';
import { allRecipes, commandWords, type Recipe, type RecipeBlock, recipesOf } from './extract-recipes.js';

/** How long one command may take to exit, or a server to answer `initialize`. */
const WAIT_MS = 45_000;

/** A user's folder: `cwd` to work in, `env` with `mcp-chain` on the PATH; `remove()` at the end. */
interface Folder {
  cwd: string;
  env: Record<string, string>;
  remove(): void;
}

function userFolder(recipe: Recipe): Folder {
  const root = mkdtempSync(join(tmpdir(), 'mcp-chain-recipe-'));
  const bin = join(root, 'bin');
  const cwd = join(root, 'work');
  mkdirSync(bin);
  mkdirSync(join(cwd, 'node_modules'), { recursive: true });
  // What `npm link` leaves on the PATH.
  writeFileSync(join(bin, 'mcp-chain'), `#!/bin/sh\nexec '${process.execPath}' '${proxyMain}' "$@"\n`);
  chmodSync(join(bin, 'mcp-chain'), 0o755);
  // `npm link mcp-chain` here, and the servers the recipes start, as if installed here.
  symlinkSync(repoRoot, join(cwd, 'node_modules', 'mcp-chain'));
  symlinkSync(join(repoRoot, 'node_modules', '@modelcontextprotocol'), join(cwd, 'node_modules', '@modelcontextprotocol'));
  symlinkSync(join(repoRoot, 'node_modules', '.bin'), join(cwd, 'node_modules', '.bin'));
  // A `${NAME}` a recipe uses (a token, say) is set, to a value of no use to anyone.
  const variables: Record<string, string> = {};
  for (const block of recipe.blocks) {
    for (const [, name] of block.text.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      if (name !== undefined && process.env[name] === undefined) variables[name] = `recipe-placeholder-${name.toLowerCase()}`;
    }
  }
  const env = { ...variables, ...proxyEnv(), PATH: `${bin}:${process.env.PATH ?? ''}`, MCP_CHAIN_LOG_LEVEL: 'warn' };
  return { cwd, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Pids of processes whose working directory is `dir` (what a recipe started and left running). */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to look at.
    }
  }
  return pids;
}

/** Runs a command to its end (bounded; killed if it overruns) and returns its exit and output. */
async function runToExit(command: string, args: readonly string[], folder: Folder): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd: folder.cwd, env: { ...process.env, ...folder.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    return { code: await withTimeout(exited, WAIT_MS, () => `${command} ${args.join(' ')} to exit: ${output}`), output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function namesOf(list: string | undefined): string[] {
  return list === undefined ? [] : list.split(',').filter(Boolean);
}

/** Connects the SDK client to what `target` serves and checks the tools the block names. */
async function checkServes(target: Target, block: RecipeBlock, where: string): Promise<void> {
  const connection = await connectClient(target, { connectTimeoutMs: WAIT_MS });
  try {
    const { tools } = await withTimeout(connection.client.listTools(), WAIT_MS, () => `tools/list of ${where}`);
    const names = tools.map((tool) => tool.name);
    assert.ok(names.length > 0, `${where}: no tools listed`);
    for (const name of namesOf(block.attrs.tools)) assert.ok(names.includes(name), `${where}: no tool ${name} in [${names.join(', ')}]`);
    for (const name of namesOf(block.attrs.hidden)) assert.ok(!names.includes(name), `${where}: tool ${name} should be hidden`);
  } finally {
    await connection.close();
  }
}

const CONFIG_EXTENSIONS = new Set(['.json', '.jsonc', '.yaml', '.yml', '.toml']);

/**
 * Serving commands already checked in this run, with what they were checked for, when they read no
 * file of their recipe: the same line in two docs (the README and a guide) is run once.
 */
const checkedCommands = new Set<string>();

async function runBlock(recipe: Recipe, block: RecipeBlock, folder: Folder): Promise<void> {
  const where = `${recipe.doc}:${block.line} (recipe ${recipe.name})`;
  const file = block.attrs.file;
  const mcpChain = join(folder.env.PATH?.split(':')[0] ?? '', 'mcp-chain');
  if (file !== undefined) {
    writeFileSync(join(folder.cwd, file), block.text);
    const isConfig = CONFIG_EXTENSIONS.has(extname(file)) || basename(file).startsWith('mcp-chain.config.');
    if (isConfig) {
      const { code, output } = await runToExit(mcpChain, ['validate', file], folder);
      assert.equal(code, 0, `${where}: mcp-chain validate ${file} failed:\n${output}`);
      if (block.attrs.tools !== undefined) {
        await checkServes({ name: where, command: mcpChain, args: ['serve', file], env: folder.env, cwd: folder.cwd }, block, where);
      }
    }
    if (block.attrs.run === 'exit') {
      const { code, output } = await runToExit(process.execPath, ['--import', import.meta.resolve('tsx'), file], folder);
      assert.equal(code, 0, `${where}: ${file} failed:\n${output}`);
    } else if (block.attrs.run === 'stdio') {
      await checkServes({ name: where, command: process.execPath, args: ['--import', import.meta.resolve('tsx'), file], env: folder.env, cwd: folder.cwd }, block, where);
    }
    return;
  }
  assert.equal(block.lang, 'sh', `${where}: a block without file= must be sh`);
  for (const line of block.text.split('\n')) {
    const words = commandWords(line);
    if (words.length === 0) continue;
    assert.equal(words[0], 'mcp-chain', `${where}: every command of a recipe is an mcp-chain command: ${line}`);
    const args = words.slice(1);
    if (args.includes('--help') || args[0] === 'validate') {
      const { code, output } = await runToExit(mcpChain, args, folder);
      assert.equal(code, 0, `${where}: ${line} failed:\n${output}`);
      continue;
    }
    const http = args.indexOf('--http');
    if (http !== -1) args[http + 1] = '127.0.0.1:0';
    const key = JSON.stringify([args, block.attrs.tools, block.attrs.hidden]);
    const readsFiles = recipe.blocks.some((other) => other.attrs.file !== undefined);
    if (!readsFiles && checkedCommands.has(key)) continue;
    if (!readsFiles) checkedCommands.add(key);
    await checkServes({ name: line, command: mcpChain, args, env: folder.env, cwd: folder.cwd, http: http !== -1 }, block, `${where}: ${line}`);
  }
}

describe('extracting recipes', () => {
  test('a marker and its fenced block make a recipe; blocks of one name are one recipe, in order', () => {
    const doc = ['# t', '<!-- recipe: one file=a.json -->', '```json', '{}', '```', 'text', '<!-- recipe: one tools=echo,add -->', '```sh', 'mcp-chain -- x', '```'].join('\n');
    assert.deepEqual(recipesOf('t.md', doc), [
      {
        doc: 't.md',
        name: 'one',
        blocks: [
          { lang: 'json', text: '{}\n', line: 2, attrs: { file: 'a.json' } },
          { lang: 'sh', text: 'mcp-chain -- x\n', line: 7, attrs: { tools: 'echo,add' } },
        ],
      },
    ]);
  });

  test('a marker that does not parse, or has no block after it, is an error rather than a recipe skipped', () => {
    assert.throws(() => recipesOf('t.md', '<!-- recipe: -->\n```sh\nx\n```'), /does not parse/);
    assert.throws(() => recipesOf('t.md', '<!-- recipe: a -->\ntext'), /followed by a fenced block/);
  });

  test('command lines split as a shell splits them, without the trailing comment', () => {
    assert.deepEqual(commandWords(`mcp-chain --bearer '\${TOKEN}' --header "X-Team: a"   # note`), ['mcp-chain', '--bearer', '${TOKEN}', '--header', 'X-Team: a']);
    assert.deepEqual(commandWords('   # only a comment'), []);
  });
});

// Two at a time: most of a recipe's time is a server starting (npx, then Node), on two cores.
describe('the recipes of the README and the guides', { skip: !proxyBuilt() && 'build first (npm run build)', concurrency: 2 }, () => {
  const recipes = allRecipes(repoRoot);

  test('the README has its three recipes, and the guides have theirs', () => {
    const readme = recipes.filter((recipe) => recipe.doc === 'README.md').map((recipe) => recipe.name);
    assert.ok(['wrap', 'gateway', 'middleware'].every((name) => readme.includes(name)), `README recipes: ${readme.join(', ')}`);
    assert.ok(recipes.some((recipe) => recipe.doc.startsWith('docs/guides/')), 'no recipe in docs/guides/');
  });

  test('the TypeScript recipes type-check (strict, NodeNext), as in a project of their own', { timeout: 180_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-chain-recipe-types-'));
    try {
      mkdirSync(join(root, 'node_modules', '@types'), { recursive: true });
      symlinkSync(repoRoot, join(root, 'node_modules', 'mcp-chain'));
      symlinkSync(join(repoRoot, 'node_modules', '@types', 'node'), join(root, 'node_modules', '@types', 'node'));
      writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
      const compilerOptions = { target: 'ES2022', module: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] };
      writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['**/*.ts', '**/*.mts'] }));
      const files: string[] = [];
      for (const [index, recipe] of recipes.entries()) {
        for (const block of recipe.blocks) {
          if (block.lang !== 'ts' || block.attrs.file === undefined) continue;
          const dir = join(root, `${index}-${recipe.name}`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, block.attrs.file), block.text);
          files.push(`${recipe.doc}:${block.line}`);
        }
      }
      assert.ok(files.length > 0, 'no TypeScript recipe');
      const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      const { code, output } = await runToExit(process.execPath, [tsc, '-p', root], { cwd: root, env: {}, remove: () => undefined });
      assert.equal(code, 0, `the TypeScript recipes (${files.join(', ')}) do not type-check:\n${output}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  for (const recipe of recipes) {
    test(`${recipe.doc}: ${recipe.name}`, { timeout: 180_000 }, async () => {
      const folder = userFolder(recipe);
      try {
        for (const block of recipe.blocks) await runBlock(recipe, block, folder);
        await eventually(
          () => (processesIn(folder.cwd).length === 0 ? true : undefined),
          () => `processes left in the recipe's folder: ${processesIn(folder.cwd).join(', ')}`,
        );
      } finally {
        for (const pid of processesIn(folder.cwd)) process.kill(pid, 'SIGKILL');
        folder.remove();
      }
    });
  }
});
