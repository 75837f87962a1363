// The HTTP front as an OAuth resource server, with a real authorization server (oidc-provider on
// loopback) issuing the tokens and the official SDK client presenting them: JWT access tokens
// checked against the issuer's JWKS (jwtVerifier), bound to this gateway as their resource.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { chain } from '../../src/chain/chain.js';
import { serveHttp } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { local } from '../../src/upstream/local.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { freePort, send } from '../helpers/http.js';
import { startJwtFront, type JwtFront } from '../helpers/jwt-front.js';

const T = { timeout: 60_000 };

const whoami = local({
  tools: [{ name: 'whoami', handler: (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.session.identity ?? null) }] }) }],
});

describe('OAuth on the HTTP front, with oidc-provider issuing the tokens', () => {
  let fixture: JwtFront | undefined;
  let as: AuthorizationServer;
  let resource: string;

  before(async () => {
    fixture = await startJwtFront(chain().to(whoami), { otherResources: ['http://127.0.0.1:1/other'] });
    ({ as, resource } = fixture);
  });

  after(() => fixture?.close());

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  test('a token the issuer minted for this gateway: the SDK client is served, as the token\'s subject with its scopes', T, async () => {
    const token = await as.token({ resource, scope: 'mcp:read mcp:write' });
    const client = await connect(token);
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      const identity = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? 'null') as Record<string, unknown>;
      assert.equal(identity.method, 'oauth');
      assert.equal(identity.issuer, as.issuer);
      assert.deepEqual(identity.scopes, ['mcp:read', 'mcp:write']);
      assert.equal(typeof identity.id, 'string');
    } finally {
      await client.close();
    }
  });

  test('a token for another resource, an opaque token without an audience, and a token without the scope are refused', T, async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const other = await send(resource, { body: ping, headers: { authorization: `Bearer ${await as.token({ resource: 'http://127.0.0.1:1/other', scope: 'mcp:read' })}` } });
    assert.equal(other.status, 401);
    assert.match(other.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="the token is for another resource"/);
    const opaque = await send(resource, { body: ping, headers: { authorization: `Bearer ${await as.token({ scope: 'mcp:read' })}` } });
    assert.equal(opaque.status, 401);
    const narrow = await send(resource, { body: ping, headers: { authorization: `Bearer ${await as.token({ resource, scope: 'mcp:write' })}` } });
    assert.equal(narrow.status, 403);
    assert.match(narrow.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  });

  test('the issuer rotates its key: a token signed with the new one is accepted (the JWKS is fetched again for the unknown kid)', T, async () => {
    // A front of its own without the JWKS cooldown (by default no refetch within 30 s of the last
    // one, which the flood test in src/auth covers), so the rotation is picked up at once.
    const port = await freePort();
    const rotating = `http://127.0.0.1:${port}/mcp`;
    const issuer = await startAuthorizationServer({ resources: [rotating] });
    const verifier = jwtVerifier({ issuer: issuer.issuer, audience: rotating, jwksUri: issuer.jwksUri, jwksCooldownMs: 0 });
    const gateway = await serveHttp(chain().to(whoami), { port, oauth: { resource: rotating, authorizationServers: [issuer.issuer], verifier }, log: silentLogger });
    try {
      const first = await verifier.verify(await issuer.token({ resource: rotating, scope: 'mcp:read' }));
      await issuer.rotateKeys();
      const token = await issuer.token({ resource: rotating, scope: 'mcp:read' });
      const client = new Client({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(rotating), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'whoami'));
      } finally {
        await client.close();
      }
      assert.equal(first.subject.length > 0, true);
    } finally {
      await gateway.close();
      await issuer.close();
    }
  });
});
