// `mcp-chain --url`: a real `node dist/cli/main.js` (build first) serving a remote MCP server
// (the in-process SDK fixture of test/fixtures/http/) on stdio, to the official SDK client.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyMain } from '../helpers/targets.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/http/mcp-http-server.js';

const T = { timeout: 30_000 };

/** Runs the CLI to its exit (for the cases that never serve). */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr, stdout });
    });
    child.stdin?.end();
  });
}

describe('mcp-chain --url', () => {
  let fixture: HttpFixture;
  before(async () => {
    fixture = await startHttpFixture();
  });
  after(() => fixture.close());

  test('serves the remote server on stdio, with --header and --bearer (${NAME} from its environment), and ends the session on exit', T, async () => {
    const conn = await connectClient({
      name: 'cli --url',
      command: process.execPath,
      args: [proxyMain, '--url', fixture.url, '--header', 'X-Team: ${CLI_HTTP_TEAM}', '--bearer', '${CLI_HTTP_TOKEN}', '--log-level', 'debug'],
      env: { CLI_HTTP_TEAM: 'red', CLI_HTTP_TOKEN: 'cli-s3cret' },
    }, { keepAllStderr: true });
    try {
      assert.equal(textOf(await callTool(conn.client, { name: 'echo', arguments: { text: 'over http' } })), 'over http');
      const headers = JSON.parse(textOf(await callTool(conn.client, { name: 'headers', arguments: {} }))) as Record<string, string>;
      assert.equal(headers['x-team'], 'red');
      assert.equal(headers.authorization, 'Bearer cli-s3cret');
    } finally {
      const report = await conn.close();
      assert.equal(report.exitCode, 0);
      assert.equal(report.escalation, 'none');
    }
    // All of stderr, not a tail of it: the token is in none of the debug log.
    const stderr = await conn.stderrText();
    assert.equal(Buffer.byteLength(stderr), conn.stderrBytes(), 'every byte the CLI wrote to stderr is read');
    const opened = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string; headers?: unknown }).find((l) => l.msg === 'upstream session opened');
    assert.deepEqual(opened?.headers, ['x-team', 'authorization'], 'the debug log names the headers it sends (and only names them)');
    assert.ok(!stderr.includes('cli-s3cret'), 'the bearer token never reaches the log');
    const session = fixture.sessions.at(-1)?.id;
    assert.ok(fixture.requests.some((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === session));
  });

  test('an unset ${NAME} is a clear configuration error (exit 2) that names the variable', T, async () => {
    const { code, stderr, stdout } = await run(['--url', fixture.url, '--bearer', '${CLI_HTTP_UNSET_TOKEN}']);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(stderr, 'mcp-chain: the bearer token refers to ${CLI_HTTP_UNSET_TOKEN}, which is not set in the environment\n');
  });

  test('usage mistakes exit 2: --url with a command, a header without a colon, --bearer without --url', T, async () => {
    const both = await run(['--url', fixture.url, '--', 'node', 'server.js']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give either --url or a command after --, not both/);
    const header = await run(['--url', fixture.url, '--header', 'no colon here']);
    assert.equal(header.code, 2);
    assert.match(header.stderr, /--header takes 'Name: value'/);
    const bearer = await run(['--bearer', 'x']);
    assert.equal(bearer.code, 2);
    assert.equal(bearer.stderr, 'mcp-chain: --bearer needs --url (see mcp-chain --help)\n');
  });
});
