// Secrets on the front side never reach the log or the audit record: `mcp-chain serve` (a real
// `node dist/cli/main.js`, build first) with `http.oauth` checking opaque tokens by introspection
// (oidc-provider on loopback), the `log` and `audit` middleware, and the log level at debug. A
// valid token is served (the SDK client lists and calls tools), an unknown one and an expired one
// are refused; then stderr and the audit file are searched for every raw token and the
// introspection client's secret: none may be there.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { freePort, initializeRequest, send } from '../helpers/http.js';
import { serveHttpCli, type CliExit } from '../helpers/serve-http-cli.js';
import { userToken } from '../helpers/user-token.js';

const T = { timeout: 60_000 };
const SECRET_VAR = 'GATEWAY_INTROSPECTION_SECRET';

/** Resolves once the authorization server says `token` is no longer active (its lifetime is a second); bounded. */
async function untilExpired(as: AuthorizationServer, token: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await as.introspect(token)).active === true) {
    if (Date.now() > deadline) throw new Error('the short-lived token did not expire within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('secrets on the front side: never in the log or the audit record', () => {
  let as: AuthorizationServer;
  let ws: Workspace;
  let port: number;
  let resource: string;

  before(async () => {
    port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await startAuthorizationServer({ resources: [resource], accessTokenFormat: 'opaque' });
    ws = workspace('mcp-chain-oauth-secrets-');
  });

  after(async () => {
    await as?.close();
    ws?.remove();
  });

  test('a valid, an unknown and an expired token, at log level debug with log and audit (every request): no token and no client secret in stderr or the audit file', T, async () => {
    const secret = as.introspectionClient.clientSecret;
    assert.ok(secret !== undefined, 'the introspection client has a secret');
    const file = ws.write('gateway.json', `${JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [serverBin('server-everything')] } },
      middleware: ['log', { audit: { file: 'audit.jsonl', scope: 'requests' } }],
      http: {
        oauth: {
          resource,
          issuer: as.issuer,
          requiredScopes: ['mcp:read'],
          claims: ['sub', 'client_id', 'scope'],
          introspection: { endpoint: as.introspectionEndpoint, clientId: as.introspectionClient.clientId, clientSecret: `\${${SECRET_VAR}}` },
        },
      },
    }, null, 2)}\n`);
    const audit = file.replace(/gateway\.json$/, 'audit.jsonl');
    const gateway = await serveHttpCli(file, port, { [SECRET_VAR]: secret, MCP_CHAIN_LOG_LEVEL: 'debug' });
    const valid = await userToken(as, resource, 'alice');
    const unknown = `made-up-${valid.slice(0, 8)}-not-a-token`;
    let expired = '';
    let exit: CliExit | undefined;
    try {
      // A valid token: the SDK client is served, and calls a tool (audited).
      const client = new Client({ name: 'oauth-secrets-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${valid}` } } }));
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        const echo = tools.find((name) => name.endsWith('echo'));
        assert.ok(echo !== undefined, tools.join(', '));
        await client.callTool({ name: echo, arguments: { message: 'hello' } });
      } finally {
        await client.close();
      }

      // An unknown token: 401, nothing of it echoed.
      const refused = await send(resource, { body: initializeRequest(), headers: { authorization: `Bearer ${unknown}` } });
      assert.equal(refused.status, 401);
      assert.ok(!refused.text.includes(unknown) && !(refused.headers.get('www-authenticate') ?? '').includes(unknown));

      // An expired token: 401 invalid_token.
      as.setAccessTokenTtl(1);
      expired = await userToken(as, resource, 'bob');
      as.setAccessTokenTtl(300);
      await untilExpired(as, expired);
      const late = await send(resource, { body: initializeRequest(), headers: { authorization: `Bearer ${expired}` } });
      assert.equal(late.status, 401);
      assert.ok((late.headers.get('www-authenticate') ?? '').includes('error="invalid_token"'));
    } finally {
      exit = await gateway.stop();
    }
    assert.equal(exit?.code, 0, gateway.stderr());

    const log = gateway.stderr();
    assert.ok(log.includes('"method":"tools/call"'), `the log middleware wrote the call: ${log}`);
    assert.ok(existsSync(audit), 'the audit file was written');
    const records = readFileSync(audit, 'utf8');
    assert.ok(records.includes('tools/call') && records.includes('"identity":{"id":"alice","method":"oauth"}'), `the audit file recorded alice's call: ${records}`);
    for (const [what, value] of [['the valid token', valid], ['the unknown token', unknown], ['the expired token', expired], ['the introspection client secret', secret]] as const) {
      assert.ok(value.length >= 16, `${what} is long enough to search for`);
      assert.ok(!log.includes(value), `${what} is in stderr`);
      assert.ok(!records.includes(value), `${what} is in the audit file`);
    }
  });
});
