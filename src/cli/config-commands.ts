// The code of the commands that read config files, `mcp-chain serve` and `mcp-chain validate`:
// one entry of the bundle (dist/bundle/cli/config-commands.js), loaded only when a config file is
// served or validated, so that the one-liners never load the config formats' libraries (yaml,
// smol-toml, jsonc-parser, zod). One entry rather than one per command: every entry splits the
// shared code into more chunks, which the one-liners would load too.
export { serveConfig } from './serve-config.js';
export { validateConfig } from './validate-config.js';
