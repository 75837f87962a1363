#!/usr/bin/env node
// Writes docs/middleware.md, the reference of the built-in middleware a config file can name, from
// the zod schemas that validate their options (src/config/middleware-reference.ts).
// src/config/middleware-reference.test.ts fails when the checked-in page differs from what this writes.
// Usage: npm run gen:middleware-docs   (runs `node --import tsx scripts/gen-middleware-docs.mjs`)
import { writeFileSync } from 'node:fs';
import { middlewareReference } from '../src/config/middleware-reference.ts';

const target = new URL('../docs/middleware.md', import.meta.url);
writeFileSync(target, middlewareReference());
console.error(`wrote ${target.pathname}`);
