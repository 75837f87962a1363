// Ten pass-through middleware, the upstream left open (the CLI puts the command behind it).
//   mcp-chain run bench/chains/noop-10.ts -- node bench/upstream.mjs
import { chain, type Middleware } from 'mcp-chain';

const noop = (): Middleware => async (_ctx, next) => next();

export default chain(...Array.from({ length: 10 }, noop));
