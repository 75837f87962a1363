// `mcp-chain --http` beyond loopback: a real `node dist/cli/main.js` (build first). Listening where
// other machines can reach it, without a token, answers anyone: the CLI refuses that unless told
// `--allow-unauthenticated`, and then says so in one warning line. Loopback binds are unaffected.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openSession, send } from '../helpers/http.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
import { loopbackAlias } from '../helpers/loopback-alias.js';
import { proxyMain, repoRoot } from '../helpers/targets.js';

const T = { timeout: 60_000 };
const upstream = join(repoRoot, 'bench', 'upstream.mjs');
const server = ['--', process.execPath, upstream];

/**
 * Runs the CLI to its exit (for the cases that never serve). A CLI that serves instead (as the one
 * before this check did) is killed after a safety net and reported with code null.
 */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const options = { env: { PATH: process.env.PATH ?? '' }, timeout: 20_000, killSignal: 'SIGKILL' as const };
    const child = execFile(process.execPath, [proxyMain, ...args], options, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/** The stderr log lines of a proxy (JSON), parsed. */
function logLines(proxy: HttpProxy): { level?: unknown; msg?: unknown; url?: unknown }[] {
  return proxy
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level?: unknown; msg?: unknown; url?: unknown });
}

/** The warning lines about an endpoint open to anyone. */
function unauthenticatedWarnings(proxy: HttpProxy): { level?: unknown; msg?: unknown; url?: unknown }[] {
  return logLines(proxy).filter((l) => typeof l.msg === 'string' && /answers anyone/.test(l.msg));
}

/** The proxy's endpoint reached through 127.0.0.1 (it announces the name it was given). */
function viaLoopback(url: string): string {
  const local = new URL(url);
  local.hostname = '127.0.0.1';
  return local.href;
}

/** A session and one echo call through the endpoint. */
async function echoThrough(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const session = await openSession(url, { headers });
  const reply = await send(url, {
    body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    headers: session.headers,
  });
  return reply.json;
}

const ECHOED = { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } };

describe('mcp-chain --http on an address beyond loopback', () => {
  test('without --token-env it refuses to start: exit 2, one line naming both fixes, nothing on stdout', T, async () => {
    for (const address of ['0.0.0.0:0', '[::]:0', '192.0.2.10:8080', 'example.com:8080', 'my-laptop:0']) {
      const { code, stdout, stderr } = await run(['--http', address, ...server]);
      assert.equal(code, 2, address);
      assert.equal(
        stderr,
        `mcp-chain: --http ${address} listens beyond this machine without a token: ` +
          'add --token-env <VAR> to require one, or --allow-unauthenticated to answer anyone who can reach it (see mcp-chain --help)\n',
      );
      assert.equal(stdout, '');
    }
  });

  test('the same for a chain file (mcp-chain run), whose help the line points to', T, async () => {
    const { code, stderr } = await run(['run', join(repoRoot, 'examples', 'company-policy.ts'), '--http', '0.0.0.0:0', ...server]);
    assert.equal(code, 2);
    assert.match(stderr, /^mcp-chain: --http 0\.0\.0\.0:0 listens beyond this machine without a token: .* \(see mcp-chain run --help\)\n$/);
  });

  test('with --allow-unauthenticated it starts, serves anyone, and says so in exactly one warning line before "listening"', T, async () => {
    const proxy = await startHttpProxy(['--http', `${await loopbackAlias()}:0`, '--allow-unauthenticated', ...server]);
    try {
      assert.deepEqual(await echoThrough(viaLoopback(proxy.url)), ECHOED);
      const warnings = unauthenticatedWarnings(proxy);
      assert.equal(warnings.length, 1, proxy.stderr());
      assert.equal(warnings[0]?.level, 40, 'a warning');
      assert.equal(warnings[0]?.url, proxy.url, 'naming the endpoint');
      const lines = logLines(proxy);
      assert.ok(lines.indexOf(warnings[0] ?? {}) < lines.findIndex((l) => l.msg === 'listening'), 'before "listening"');
    } finally {
      assert.equal(await proxy.stop(), 0);
    }
  });

  test('with --token-env it starts without a warning, and answers only that token', T, async () => {
    const proxy = await startHttpProxy(['--http', `${await loopbackAlias()}:0`, '--token-env', 'OPEN_TOKEN', ...server], { OPEN_TOKEN: 'tok-open-1' });
    try {
      const url = viaLoopback(proxy.url);
      assert.equal((await send(url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status, 401);
      assert.deepEqual(await echoThrough(url, { authorization: 'Bearer tok-open-1' }), ECHOED);
      assert.deepEqual(unauthenticatedWarnings(proxy), []);
    } finally {
      assert.equal(await proxy.stop(), 0);
    }
  });

  test('--allow-unauthenticated needs --http', T, async () => {
    const { code, stderr } = await run(['--allow-unauthenticated', ...server]);
    assert.equal(code, 2);
    assert.equal(stderr, 'mcp-chain: --allow-unauthenticated needs --http (see mcp-chain --help)\n');
  });
});

describe('mcp-chain --http on loopback', () => {
  for (const address of ['0', '127.0.0.1:0', 'localhost:0', '[::1]:0']) {
    test(`--http ${address} starts without a token and without a warning`, T, async () => {
      const proxy = await startHttpProxy(['--http', address, ...server]);
      try {
        assert.deepEqual(await echoThrough(proxy.url), ECHOED);
        assert.deepEqual(unauthenticatedWarnings(proxy), []);
      } finally {
        assert.equal(await proxy.stop(), 0);
      }
    });
  }
});
