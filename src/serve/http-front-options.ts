import { introspectionVerifier } from '../auth/introspection-verifier.js';
import { jwtVerifier } from '../auth/jwt-verifier.js';
import type { OAuthFrontConfig } from '../config/gateway-config.js';
import type { ServeHttpOptions } from '../front/http/serve-http.js';
import type { OAuthResourceOptions } from '../front/http/oauth-resource.js';
import type { Logger } from '../log/logger.js';
import type { FrontPlan } from './serve-plan.js';

type HttpFrontPlan = Extract<FrontPlan, { kind: 'http' }>;

/** The HTTP front of a plan as `serveHttp` options (the sessions' own options are added by the caller). */
export function httpFrontOptions(front: HttpFrontPlan, log: Logger): ServeHttpOptions {
  return {
    host: front.host,
    port: front.port,
    path: front.path,
    sse: front.sse,
    ...(front.tokens.length > 0 ? { auth: { tokens: front.tokens.map((t) => ({ id: t.id, token: t.token })) } } : {}),
    ...(front.oauth === undefined ? {} : { oauth: oauthResourceOptions(front.oauth, log) }),
    // The plan refused a bind beyond loopback without a token unless allowed in so many words;
    // serveHttp then says so in one warning line.
    allowUnauthenticated: front.allowUnauthenticated,
    ...(front.allowedOrigins === undefined ? {} : { allowedOrigins: [...front.allowedOrigins] }),
    ...(front.allowedHosts === undefined ? {} : { allowedHosts: [...front.allowedHosts] }),
    ...(front.sessionTtlMs === undefined ? {} : { sessionTtlMs: front.sessionTtlMs }),
    ...(front.maxSessions === undefined ? {} : { maxSessions: front.maxSessions }),
    ...(front.maxStartingSessions === undefined ? {} : { maxStartingSessions: front.maxStartingSessions }),
  };
}

/**
 * The front's OAuth resource server, from `http.oauth`: a JWT verifier against the issuer's keys or
 * an introspection verifier (which logs the endpoint's failures, never the token or the secret).
 * Nothing is fetched yet: the keys on the first token, introspection per token.
 */
function oauthResourceOptions(oauth: OAuthFrontConfig, log: Logger): OAuthResourceOptions {
  const common = {
    audience: oauth.audience,
    ...(oauth.requiredScopes === undefined ? {} : { requiredScopes: oauth.requiredScopes }),
    ...(oauth.clockToleranceSec === undefined ? {} : { clockToleranceSec: oauth.clockToleranceSec }),
  };
  const check = oauth.tokens;
  const verifier =
    check.kind === 'jwt'
      ? jwtVerifier({ ...common, issuer: oauth.issuer, jwksUri: check.jwksUri, ...(check.algorithms === undefined ? {} : { algorithms: check.algorithms }) })
      : introspectionVerifier({
          ...common,
          endpoint: check.endpoint,
          clientId: check.clientId,
          clientSecret: check.clientSecret,
          ...(check.clientAuth === undefined ? {} : { clientAuth: check.clientAuth }),
          ...(check.cacheMs === undefined ? {} : { cacheMs: check.cacheMs }),
          logger: log,
        });
  return {
    resource: oauth.resource,
    authorizationServers: oauth.authorizationServers,
    verifier,
    ...(oauth.requiredScopes === undefined ? {} : { requiredScopes: oauth.requiredScopes }),
    ...(oauth.scopesSupported === undefined ? {} : { scopesSupported: oauth.scopesSupported }),
    ...(oauth.claims === undefined ? {} : { claims: oauth.claims }),
    ...(oauth.resourceName === undefined ? {} : { resourceName: oauth.resourceName }),
  };
}
