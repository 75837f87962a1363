import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { defineFuzzTarget } from './fuzz-target.js';
import { assertPrototypeClean } from './grammar.js';

type Format = 'json' | 'jsonc' | 'yaml' | 'toml';

/** Valid config files of each format, as the clients write them: the seeds that get mutated. */
const SEEDS: readonly (readonly [Format, string])[] = [
  ['json', '{\n  "mcpServers": {\n    "echo": { "command": "echo", "args": ["hi", "${MODE:-fast}"], "env": { "T": "${TOKEN}" } },\n    "web": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${env:TOKEN}" } }\n  }\n}\n'],
  ['jsonc', '{\n  // the one server\n  "mcpServers": {\n    "echo": { "command": "echo", "args": ["hi",], /* trailing */ },\n  },\n  "naming": { "separator": "__" },\n}\n'],
  ['json', '{\n  "servers": {\n    "local": { "type": "stdio", "command": "node", "args": ["${workspaceFolder}/server.js"], "envFile": "app.env" },\n    "remote": { "type": "http", "url": "https://h.example/mcp" }\n  },\n  "inputs": []\n}\n'],
  ['yaml', 'http:\n  port: 3000\n  tokens: ["${TOKEN}", { id: ci, token: "${TOKEN}" }]\nmiddleware:\n  - log\n  - filter: { tools: { deny: ["delete_*"] } }\nmcpServers:\n  github:\n    command: gh-mcp\n    prefix: gh\n    tools: { allow: [search_*] }\n  plain: { command: p, prefix: false }\n'],
  ['yaml', 'mcpServers:\n  echo:\n    command: echo\n    args: [hi]\n  web:\n    url: https://example.com/mcp\n'],
  ['toml', '[mcp_servers.local]\ncommand = "server"\nenv_vars = ["TOKEN"]\nenv = { OWN = "1" }\nstartup_timeout_sec = 20\nenabled_tools = ["read_*"]\n[mcp_servers.remote]\nurl = "https://api.example.com/mcp"\nbearer_token_env_var = "TOKEN"\nhttp_headers = { "X-Team" = "core" }\n'],
];

/** Text that stresses each format: its punctuation, keys that reach prototypes, references to odd variables, big values. */
const insertion = fc.oneof(
  fc.constantFrom('{', '}', '[', ']', '"', "'", ',', ':', '=', '#', '//', '/*', '\n', '\r\n', '\t', ' ', '-', '- ', '&a', '*a', '!!js/function', '<<: *a', '\\', '\0', '\ufeff', '\ud800', 'é'),
  fc.constantFrom('"__proto__": { "polluted": 1 },', '__proto__: { polluted: 1 }\n', '[__proto__]\npolluted = 1\n', '"constructor": { "prototype": { "polluted": 1 } },', 'constructor:\n  prototype:\n    polluted: 1\n', '"prototype": 1,'),
  fc.constantFrom('"${__proto__}"', '"${constructor}"', '"${toString}"', '"${hasOwnProperty}"', '"${}"', '"${a:-${b}}"', '"${env:}"', '"${input:key}"', '"${A:-}"', '"${valueOf:-x}"', '"$${X}"', '"${X"'),
  fc.constantFrom('1e400', '-1e400', '99999999999999999999999', '0x10', '1_000', 'NaN', 'inf', '.inf', '2024-01-01T00:00:00Z', 'true', 'null', '~'),
  fc.constantFrom(10_000, 5_000).chain((n) => fc.constantFrom('['.repeat(n) + ']'.repeat(n), '{"a":'.repeat(n) + '1' + '}'.repeat(n), '{a: '.repeat(n) + '1' + '}'.repeat(n), '- '.repeat(Math.min(n, 2000)) + 'x')),
  fc.constantFrom(1_000, 100_000).map((n) => `"${'x'.repeat(n)}"`),
  fc.string({ maxLength: 8 }),
);

interface Input {
  readonly format: Format;
  readonly text: string;
}

const input: fc.Arbitrary<Input> = fc
  .tuple(fc.constantFrom(...SEEDS), fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'replace', 'delete', 'truncate', 'duplicate-line'), insertion), { maxLength: 4 }))
  .map(([[format, seed], edits]) => {
    let text = seed;
    for (const [at, kind, piece] of edits) {
      const i = at % (text.length + 1);
      if (kind === 'insert') text = text.slice(0, i) + piece + text.slice(i);
      else if (kind === 'replace') text = text.slice(0, i) + piece + text.slice(i + piece.length);
      else if (kind === 'delete') text = text.slice(0, i) + text.slice(i + 1 + (at % 7));
      else if (kind === 'truncate') text = text.slice(0, i);
      else {
        // A line written twice: duplicate keys in each format.
        const lines = text.split('\n');
        const n = at % Math.max(1, lines.length);
        lines.splice(n, 0, lines[n] ?? '');
        text = lines.join('\n');
      }
    }
    return { format, text };
  });

/** Variables the configs may use; nothing else is set (so prototype names are not set either). */
const SECRET = 'S3cr3t-9f2e';
const ENV: Readonly<Record<string, string>> = { TOKEN: SECRET, MODE: 'slow' };

function checkError(error: unknown, file: string): void {
  if (!(error instanceof ConfigError)) throw error;
  if (error.problems.length === 0) throw new Error('a ConfigError with no problem');
  for (const problem of error.problems) {
    if (problem.file !== file) throw new Error(`a problem placed in ${problem.file}, not ${file}`);
    if (typeof problem.path !== 'string' || typeof problem.message !== 'string' || problem.message === '') throw new Error(`a problem without a place or message: ${JSON.stringify(problem)}`);
    for (const n of [problem.line, problem.column]) {
      if (n !== undefined && (!Number.isSafeInteger(n) || n < 1)) throw new Error(`a problem at line/column ${String(n)}`);
    }
    if (problem.message.includes(SECRET)) throw new Error(`a problem tells the value of a variable: ${problem.message}`);
  }
}

/** What a value made of the prototype's members would look like in a loaded config. */
const LEAKED = /function \w*\(\) \{ \[native code\] \}|\[object Object\]/;

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'config-files',
    invariant: 'a mutated config file (JSON, JSONC, YAML, TOML) loads or fails with a ConfigError whose every problem names the file and a place, never another exception; no __proto__ key pollutes; no variable resolves to a prototype member',
    arbitrary: input,
    quickRuns: 150,
    inputTimeoutMs: 10_000,
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-fuzz-config-'));
      mkdirSync(join(dir, 'work'));
      writeFileSync(join(dir, 'work', 'app.env'), 'FROM_FILE=1\n');
      return {
        async check({ format, text }: Input) {
          const file = join(dir, 'work', `config.${format}`);
          writeFileSync(file, text);
          try {
            const config = await loadConfig(file, { env: ENV });
            const seen = JSON.stringify(config, (_key, value: unknown) => (typeof value === 'function' ? String(value) : value));
            if (LEAKED.test(seen)) throw new Error(`a loaded value came from a prototype: ${seen.slice(0, 300)}`);
          } catch (error) {
            checkError(error, file);
          } finally {
            rmSync(file, { force: true });
          }
          assertPrototypeClean();
        },
        close() {
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  }),
  defineFuzzTarget({
    name: 'config-variables',
    invariant: '${NAME} for a name the environment does not set (also __proto__, constructor, toString) is the error "uses ${NAME}, which is not set", never a prototype member; ${NAME:-default} falls back',
    arbitrary: fc.tuple(
      fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString'), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)),
      fc.boolean(),
      fc.constantFrom<'env' | 'process'>('env', 'process'),
    ),
    quickRuns: 150,
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-fuzz-vars-'));
      return {
        async check([name, withDefault, source]: [string, boolean, 'env' | 'process']) {
          if (name === 'userHome' || name === 'workspaceFolder' || (source === 'process' && Object.hasOwn(process.env, name))) return;
          const reference = withDefault ? `\${${name}:-fallback}` : `\${${name}}`;
          const file = join(dir, 'config.json');
          writeFileSync(file, JSON.stringify({ mcpServers: { s: { command: 'x', env: { V: reference } } } }));
          const options = source === 'env' ? { env: {} } : {};
          try {
            const config = await loadConfig(file, options);
            const server = config.servers[0];
            const value = server !== undefined && 'env' in server ? server.env.V : undefined;
            if (!withDefault || value !== 'fallback') throw new Error(`${reference} resolved to ${String(value).slice(0, 80)}`);
          } catch (error) {
            checkError(error, file);
            if (!(error instanceof ConfigError)) throw error;
            const message = error.problems.map((p) => p.message).join('; ');
            if (withDefault || message !== `uses ${reference}, which is not set`) throw new Error(`${reference}: ${message}`);
          }
        },
        close() {
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  }),
];
