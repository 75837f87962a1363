// The server alone behind an aggregate (one member: names left as they are), the chain in front of
// it with no middleware: the aggregate's own cost, and the base of what each extra member adds
// (bench/chains/aggregate-3.ts):
//   mcp-chain run bench/chains/aggregate-1.ts -- node bench/upstream.mjs
import { aggregate, chain, type Upstream } from 'mcp-chain';

export default (upstream: Upstream): Upstream => chain().to(aggregate([{ name: 'a', upstream }]));
