// The HTTP upstreams, re-exported by the root: `import { http, sse } from 'mcp-chain'`.
export { http } from './http.js';
export { sse } from './sse.js';
export type { HttpOptions } from './http-options.js';
export type { Principal, UpstreamAuth, UpstreamRefusal } from '../../auth/upstream-auth.js';
export type { UpstreamOAuthOptions } from '../../auth/client/upstream-oauth-options.js';
