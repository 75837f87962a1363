// `mcp-chain serve config.json --http` with the file's `http.oauth`: a real `node dist/cli/main.js`
// (build first) as an OAuth resource server in front of server-everything, with oidc-provider on
// loopback issuing the tokens and the official SDK client presenting them: the protected resource
// metadata served, a request without a token challenged, a token minted for this gateway served;
// JWTs checked against the issuer's keys, opaque tokens by introspection (its secret never logged).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPkce, startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { freePort, initializeRequest, send } from '../helpers/http.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;

/** A CLI serving HTTP: its stderr so far, and `stop()` (SIGTERM, then its exit). */
interface Served {
  stderr(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `mcp-chain serve <file> --http 127.0.0.1:<port>` (a minimal environment plus `env`), once it listens. */
async function serve(file: string, port: number, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [proxyMain, 'serve', file, '--http', `127.0.0.1:${port}`], {
    env: { PATH: process.env.PATH ?? '', ...proxyEnv(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/"msg":"listening"/.test(text)) resolve();
    });
    void exited.then(() => reject(new Error(`the CLI exited before listening: ${text}`)));
  });
  const stop = async (): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return withTimeout(exited, EVENT_MS, () => `the CLI to exit after SIGTERM: ${text}`);
  };
  try {
    await withTimeout(listening, EVENT_MS, () => `the CLI to listen: ${text}`);
    return { stderr: () => text, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

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
/** Where the test's client says it is redirected to: the login is driven by the test, nothing listens. */
const REDIRECT = 'http://127.0.0.1:1/callback';

/** A user's access token for `resource`, by authorization code with PKCE, the login driven as a browser would. */
async function userToken(as: AuthorizationServer, resource: string, subject: string): Promise<string> {
  const { client_id: clientId } = await as.registerClient({ redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  const pkce = createPkce();
  const url = as.authorizationUrl({ clientId, redirectUri: REDIRECT, resource, scope: 'mcp:read', codeChallenge: pkce.challenge });
  const code = new URL(await as.completeLogin(url, { subject })).searchParams.get('code');
  assert.ok(code, 'the login gives a code');
  return (await as.exchangeCode({ clientId }, { code, verifier: pkce.verifier, redirectUri: REDIRECT, resource })).access_token;
}

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
    const gateway = await serve(file, jwtPort, { RESOURCE: resource, ISSUER: as.issuer });
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
    const gateway = await serve(file, opaquePort, { [SECRET_VAR]: secret, MCP_CHAIN_LOG_LEVEL: 'debug' });
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
