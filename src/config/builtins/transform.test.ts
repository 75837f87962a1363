// The config file's `transform`: options as a file writes them, checked with their places, and the
// middleware they make.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { transformBuiltin } from './transform.js';


const dir = tempDir();
let files = 0;
function file(ext: string, text: string | object): string {
  return write(dir, join(`case-${++files}`, `config.${ext}`), text);
}

const YAML = `
mcpServers:
  jira:
    command: jira-mcp
    middleware:
      - transform:
          tools:
            search_issues:
              name: acme_search
              description: "{description} Only for ACME's staging data."
              annotations: { readOnlyHint: true }
              arguments:
                project: { hide: true, value: ACME-STAGING }
                q: { name: query }
                limit: { default: 10, minimum: 1, maximum: 50 }
            delete_issue: { enabled: false }
middleware:
  - transform:
      tools:
        jira__acme_search: { title: Search }
`;

describe('config: transform', () => {
  test('a file names it on a server and on the whole gateway; the options make the middleware', async () => {
    const config = await loadConfig(file('yaml', YAML));
    const [jira] = config.servers;
    const [entry] = jira?.middleware ?? [];
    assert.ok(entry?.kind === 'builtin');
    assert.equal(entry.name, 'transform');
    assert.equal(entry.path, 'mcpServers.jira.middleware[0]');
    assert.deepEqual(config.middleware.map((m) => (m.kind === 'builtin' ? [m.name, m.options] : m.kind)), [['transform', { tools: { jira__acme_search: { title: 'Search' } } }]]);

    const server = local({
      tools: [
        {
          name: 'search_issues',
          description: 'Searches.',
          inputSchema: { type: 'object', properties: { project: { type: 'string' }, q: { type: 'string' }, limit: { type: 'integer' } }, required: ['project', 'q'] },
          handler: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
        },
        { name: 'delete_issue', handler: () => ({ content: [] }) },
      ],
    });
    const h = await harness(chain().use(transformBuiltin.create(entry.options, { dir, file: 'mcp-chain.json', log: silentLogger })).to(server));
    const [tool, ...others] = (await h.request('tools/list')).tools;
    assert.equal(others.length, 0);
    assert.deepEqual(tool, {
      name: 'acme_search',
      description: "Searches. Only for ACME's staging data.",
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', default: 10, minimum: 1, maximum: 50 } }, required: ['query'] },
    });
    const result = await h.request('tools/call', { name: 'acme_search', arguments: { query: 'bug' } });
    assert.deepEqual(result.content, [{ type: 'text', text: JSON.stringify({ q: 'bug', project: 'ACME-STAGING', limit: 10 }) }]);
    await h.close();
  });

  test('wrong options are problems with their paths (and lines)', async () => {
    const path = file('json', {
      mcpServers: {
        a: {
          command: 'a',
          middleware: [{ transform: { tools: { t: { descripton: 'x', arguments: { n: { minimum: '1' }, p: { hide: true } } } } } }],
        },
      },
    });
    const error = await configErrorOf(loadConfig(path));
    assert.deepEqual(
      error.problems.map((p) => `${p.path}: ${p.message}`),
      [
        'mcpServers.a.middleware[0].transform.tools.t.descripton: unknown key; did you mean "description"?',
        'mcpServers.a.middleware[0].transform.tools.t.arguments.n.minimum: expected a number, found a string',
      ],
    );
    assert.ok(error.problems.every((p) => p.line !== undefined));

    const rules = file('yaml', 'mcpServers:\n  a:\n    command: a\nmiddleware:\n  - transform:\n      tools:\n        t:\n          arguments:\n            p: { hide: true }\n            q: { name: r }\n            r: {}\n        u: { name: t }\n');
    const ruled = await configErrorOf(loadConfig(rules));
    assert.deepEqual(
      ruled.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`),
      [
        '9: middleware[0].transform.tools.t.arguments.p.hide: a hidden argument needs a value (or a default) to send on every call',
        '11: middleware[0].transform.tools.t.arguments.r: arguments "q" and "r" would both be named "r"',
        '12: middleware[0].transform.tools.u.name: tools "t" and "u" would both be named "t"',
      ],
    );
  });

});
