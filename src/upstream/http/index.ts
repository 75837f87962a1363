// The HTTP upstreams, for `import { http, sse } from 'mcp-chain/http'`.
export { http } from './http.js';
export { sse } from './sse.js';
export type { HttpOptions } from './http-options.js';
