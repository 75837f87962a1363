// `mcp-chain serve config.json --http` with the file's `http.oauth`: a real `node dist/cli/main.js`
// (build first) as an OAuth resource server in front of server-everything, with oidc-provider on
// loopback issuing the tokens and the official SDK client presenting them: the protected resource
// metadata served, a request without a token challenged, a token minted for this gateway served;
// JWTs checked against the issuer's keys, opaque tokens by introspection (its secret never logged).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { freePort, initializeRequest, send } from '../helpers/http.js';
import { serveHttpCli } from '../helpers/serve-http-cli.js';
import { userToken } from '../helpers/user-token.js';

const T = { timeout: 60_000 };

async function listToolsWith(resource: string, token: string): Promise<string[]> {
  const client = new Client({ name: 'cli-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

const SECRET_VAR = 'GATEWAY_INTROSPECTION_SECRET';
describe('mcp-chain serve <config-file> --http with http.oauth', () => {
  let as: AuthorizationServer;
  let ws: Workspace;
  let jwtPort: number;
  let opaquePort: number;
  const resourceOf = (port: number): string => `http://127.0.0.1:${port}/mcp`;

  before(async () => {
    jwtPort = await freePort();
    opaquePort = await freePort();
    const opaque = resourceOf(opaquePort);
    as = await startAuthorizationServer({ resources: [resourceOf(jwtPort), opaque], accessTokenFormat: (resource) => (resource === opaque ? 'opaque' : 'jwt') });
    ws = workspace('mcp-chain-serve-oauth-');
  });

  after(async () => {
    await as?.close();
    ws?.remove();
  });

  function configFile(name: string, oauth: Record<string, unknown>): string {
    const config = { mcpServers: { everything: { command: process.execPath, args: [serverBin('server-everything')] } }, http: { oauth } };
    return ws.write(name, `${JSON.stringify(config, null, 2)}\n`);
  }

  test('JWT access tokens: the metadata names the resource and the issuer; no token → 401 pointing at it; a token for this gateway → the SDK client lists the tools', T, async () => {
    const resource = resourceOf(jwtPort);
    const file = configFile('jwt.json', { resource: '${RESOURCE}', issuer: '${ISSUER}', jwksUri: '${ISSUER}/jwks', requiredScopes: ['mcp:read'], resourceName: 'Test gateway' });
    const gateway = await serveHttpCli(file, jwtPort, { RESOURCE: resource, ISSUER: as.issuer });
    try {
      const metadata = await send(`http://127.0.0.1:${jwtPort}/.well-known/oauth-protected-resource/mcp`, { method: 'GET' });
      assert.equal(metadata.status, 200);
      assert.deepEqual(metadata.json, {
        resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:read'],
        resource_name: 'Test gateway',
      });

      const anonymous = await send(resource, { body: initializeRequest() });
      assert.equal(anonymous.status, 401);
      const challenge = anonymous.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer /);
      assert.ok(challenge.includes(`resource_metadata="http://127.0.0.1:${jwtPort}/.well-known/oauth-protected-resource/mcp"`), challenge);

      const foreign = await send(resource, { body: initializeRequest(), headers: { authorization: `Bearer ${await as.token({ resource: resourceOf(opaquePort), scope: 'mcp:read' })}` } });
      assert.equal(foreign.status, 401, 'a token for another resource is refused');

      const tools = await listToolsWith(resource, await as.token({ resource, scope: 'mcp:read' }));
      assert.ok(tools.length > 0 && tools.some((name) => name.includes('echo')), tools.join(', '));
    } finally {
      const exit = await gateway.stop();
      assert.equal(exit.code, 0, gateway.stderr());
    }
  });

  test('opaque tokens by introspection, the client secret from the environment: a token of a user served, and the secret never in the log', T, async () => {
    const resource = resourceOf(opaquePort);
    const secret = as.introspectionClient.clientSecret;
    assert.ok(secret !== undefined, 'the introspection client has a secret');
    const file = configFile('opaque.json', {
      resource,
      issuer: as.issuer,
      introspection: { endpoint: as.introspectionEndpoint, clientId: as.introspectionClient.clientId, clientSecret: `\${${SECRET_VAR}}` },
    });
    const gateway = await serveHttpCli(file, opaquePort, { [SECRET_VAR]: secret, MCP_CHAIN_LOG_LEVEL: 'debug' });
    try {
      const anonymous = await send(resource, { body: initializeRequest() });
      assert.equal(anonymous.status, 401);
      const token = await userToken(as, resource, 'alice');
      const tools = await listToolsWith(resource, token);
      assert.ok(tools.length > 0, tools.join(', '));
      const log = gateway.stderr();
      assert.ok(!log.includes(secret), 'the client secret never reaches the log');
      assert.ok(!log.includes(token), 'the token never reaches the log');
    } finally {
      const exit = await gateway.stop();
      assert.equal(exit.code, 0, gateway.stderr());
    }
  });
});
