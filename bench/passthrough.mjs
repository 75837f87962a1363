#!/usr/bin/env node
// A reference point, not a product: the barest Node proxy for newline-delimited JSON-RPC. It
// spawns the command after `--`, parses every line it reads from either side and writes it,
// re-serialized, to the other side. No MCP logic, no ids, no flow control, no error handling:
// what a proxy costs before it does anything useful (the "bare Node pass-through").
//
//   node bench/passthrough.mjs -- node bench/upstream.mjs
import { spawn } from 'node:child_process';
import process from 'node:process';

const dash = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(dash + 1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

function pipeLines(from, to) {
  let rest = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    let out = '';
    for (const line of lines) if (line) out += JSON.stringify(JSON.parse(line)) + '\n';
    if (out) to.write(out);
  });
}

pipeLines(process.stdin, child.stdin);
pipeLines(child.stdout, process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 0));
