import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import type { Upstream } from '../../src/core/upstream.js';
import { serveHttp, type HttpFront } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';
import { freePort } from './http.js';

/** The HTTP front as an OAuth resource server of JWTs, and the authorization server issuing them. */
export interface JwtFront {
  readonly as: AuthorizationServer;
  readonly front: HttpFront;
  /** The front's MCP endpoint, the resource its tokens are minted for. */
  readonly resource: string;
  /** Closes the front, then the authorization server. */
  close(): Promise<void>;
}

/** What differs between the tests of the front. */
export interface JwtFrontOptions {
  /** Further resources the authorization server mints tokens for (tokens not for this front). */
  otherResources?: readonly string[];
  /** The token verifier's clock; default `Date.now`. */
  now?: () => number;
}

/**
 * `serveHttp` of `upstream` on a free loopback port as an OAuth resource server (jwtVerifier
 * against the issuer's JWKS, `mcp:read` required, silent), with oidc-provider on loopback issuing
 * JWT access tokens for it.
 */
export async function startJwtFront(upstream: Upstream, options: JwtFrontOptions = {}): Promise<JwtFront> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const as = await startAuthorizationServer({ resources: [resource, ...(options.otherResources ?? [])] });
  let front: HttpFront;
  try {
    front = await serveHttp(upstream, {
      port,
      oauth: {
        resource,
        authorizationServers: [as.issuer],
        verifier: jwtVerifier({ issuer: as.issuer, audience: resource, jwksUri: as.jwksUri, ...(options.now === undefined ? {} : { now: options.now }) }),
        requiredScopes: ['mcp:read'],
      },
      log: silentLogger,
    });
  } catch (error) {
    await as.close();
    throw error;
  }
  return {
    as,
    front,
    resource,
    close: async () => {
      await front.close();
      await as.close();
    },
  };
}
