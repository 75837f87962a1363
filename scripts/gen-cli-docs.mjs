#!/usr/bin/env node
// Writes docs/cli.md from the command table (src/cli/command-table.ts): the reference of every
// command, argument and option, generated like --help so that it cannot fall behind the code.
// src/cli/cli-docs.test.ts fails when the checked-in file differs from what this writes.
// Usage: npm run gen:cli-docs   (runs `node --import tsx scripts/gen-cli-docs.mjs`)
import { writeFileSync } from 'node:fs';
import { COMMAND_TABLE } from '../src/cli/command-table.ts';
import { renderCliDocs } from '../src/cli/cli-docs.ts';

const target = new URL('../docs/cli.md', import.meta.url);
writeFileSync(target, renderCliDocs(COMMAND_TABLE));
console.error(`wrote ${target.pathname}`);
