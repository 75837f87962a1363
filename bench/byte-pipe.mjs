#!/usr/bin/env node
// A reference point, not a product: the floor of any proxy that is a process of its own. It
// spawns the command after `--` and pipes bytes both ways without looking at them. What it costs
// is the extra process hop itself (two more pipe copies, two more wake-ups per message).
//
//   node bench/byte-pipe.mjs -- node bench/upstream.mjs
import { spawn } from 'node:child_process';
import process from 'node:process';

const dash = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(dash + 1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
