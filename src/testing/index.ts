// mcp-chain/testing: run a chain in-process and script its client, for tests of middleware.
export { harness, Harness, type HarnessOptions } from './harness.js';
