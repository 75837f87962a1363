// Three copies of the server behind one aggregate (members a, b, c: tools `a__echo`, `b__echo`,
// ...), the chain in front of it with no middleware, as `mcp-chain -- <command>` is for one:
//   mcp-chain run bench/chains/aggregate-3.ts -- node bench/upstream.mjs
// The command's upstream is connected once per member: each member is a process of its own.
import { aggregate, chain, type Upstream } from 'mcp-chain';

export default (upstream: Upstream): Upstream => chain().to(aggregate(['a', 'b', 'c'].map((name) => ({ name, upstream }))));
