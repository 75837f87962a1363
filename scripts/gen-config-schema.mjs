#!/usr/bin/env node
// Writes schema/mcp-chain.config.schema.json, the JSON Schema of config files (editor completion
// and checks), from the zod schema that validates them (src/config/config-schema.ts).
// src/config/config-json-schema.test.ts fails when the checked-in file differs from what this writes.
// Usage: npm run gen:config-schema   (runs `node --import tsx scripts/gen-config-schema.mjs`)
import { mkdirSync, writeFileSync } from 'node:fs';
import { configJsonSchema } from '../src/config/config-json-schema.ts';

const target = new URL('../schema/mcp-chain.config.schema.json', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, JSON.stringify(configJsonSchema(), null, 2) + '\n');
console.error(`wrote ${target.pathname}`);
