// `pin` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is imported from
// the repository's sources, reached by the official SDK client. The shifty fixture changes its
// tool's description between runs: the first run pins it, the second applies warn, hide or block
// (pin in that server's own middleware list, next to an unchanged server), `mcp-chain pin accept`
// shows the diff and refuses without a terminal, accepts with --yes, and the third run shows the
// tool again. And pin in front of server-everything, on stdio and --http: its tools pinned, listed
// unchanged. And onNew: "hide": a server added to a pinned gateway has its tools held back as new
// until `mcp-chain pin accept --config` accepts them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { directTarget, fixtureEntry, gatewayTarget, listAll, referenceEntry, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, proxyEnv, proxyMain, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 60_000 };
const json = (value: unknown): string => JSON.stringify(value);
const ORIGINAL = 'Gets the weather for a city.';
const CHANGED = 'Gets the weather for a city, and the forecast.';

interface PinFileShape {
  namespaces: Record<string, Record<string, { hash: string; definition: Record<string, unknown>; pending?: { definition: Record<string, unknown> } }>>;
}

function readStore(file: string): PinFileShape {
  return JSON.parse(readFileSync(file, 'utf8')) as PinFileShape;
}

/**
 * Two shifty servers: `shifty` (its description from shifty.json) and `calm` (never changes). pin
 * on the gateway (namespace "gateway", the gateway's tool names), or in shifty's own middleware
 * list (namespace "shifty", the server's own names).
 */
function shiftyConfig(ws: Workspace, onChange: 'warn' | 'hide' | 'block', placement: Placement): string {
  const shifty = fixtureEntry('shifty', { SHIFTY_FILE: ws.path('shifty.json') });
  const calm = fixtureEntry('shifty', { SHIFTY_DESCRIPTION: ORIGINAL });
  // The namespace is left to its default: the server's name in its own list, else "gateway".
  const middleware = [{ pin: { store: 'pins.json', onChange } }];
  return ws.write(
    'mcp-chain.config.json',
    json({
      mcpServers: { shifty: placement.namespace === 'shifty' ? { ...shifty, middleware } : shifty, calm },
      ...(placement.namespace === 'gateway' ? { middleware } : {}),
    }),
  );
}

interface Placement {
  namespace: 'gateway' | 'shifty';
  /** The changing tool as pin sees it. */
  tool: string;
}

const PLACEMENTS: Record<'warn' | 'hide' | 'block', Placement> = {
  warn: { namespace: 'shifty', tool: 'fetch_weather' },
  hide: { namespace: 'gateway', tool: 'shifty__fetch_weather' },
  block: { namespace: 'shifty', tool: 'fetch_weather' },
};

/** `mcp-chain pin <args>` with no terminal: its exit code, stdout and stderr. */
function pinCli(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [proxyMain, 'pin', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...proxyEnv(), PATH: process.env.PATH ?? '' },
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function run<T>(ws: Workspace, file: string, use: (gateway: Connection) => Promise<T>): Promise<T> {
  const gateway = await connectClient(gatewayTarget(file), { capabilities: {} });
  try {
    return await use(gateway);
  } finally {
    await gateway.close();
  }
}

const names = async (gateway: Connection): Promise<string[]> => (await listAll(gateway.client, 'tools')).items.map((tool) => tool.name).sort();
const descriptionOf = async (gateway: Connection, name: string): Promise<string | undefined> =>
  (await listAll(gateway.client, 'tools')).items.find((tool) => tool.name === name)?.description;

async function refusal(gateway: Connection, name: string): Promise<McpError> {
  const error = await gateway.client.callTool({ name, arguments: { city: 'Oslo' } }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof McpError, `expected a refusal of ${name}, got ${String(error)}`);
  return error;
}

for (const onChange of ['warn', 'hide', 'block'] as const) {
  describe(`pin through mcp-chain serve: a server changes its tool between runs (onChange: ${onChange})`, () => {
    let ws: Workspace;
    let config: string;
    let store: string;

    before(() => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-pin-');
      config = shiftyConfig(ws, onChange, PLACEMENTS[onChange]);
      store = ws.path('pins.json');
    });

    after(() => ws?.remove());

    const { namespace, tool } = PLACEMENTS[onChange];

    it(`pin in ${namespace === 'gateway' ? "the gateway's" : "shifty's own"} middleware: run 1 pins every tool; run 2 applies the action; pin accept shows the diff, refuses without a terminal, accepts with --yes; run 3 shows the tool again`, T, async () => {
      ws.write('shifty.json', json({ description: ORIGINAL }));
      await run(ws, config, async (gateway) => {
        assert.deepEqual(await names(gateway), ['calm__fetch_weather', 'calm__steady', 'shifty__fetch_weather', 'shifty__steady']);
        assert.equal(textOf(await callTool(gateway.client, { name: 'shifty__fetch_weather', arguments: { city: 'Oslo' } })), 'Sunny in Oslo');
      });
      const pinned = readStore(store).namespaces[namespace] ?? {};
      assert.deepEqual(
        Object.keys(pinned).sort(),
        namespace === 'shifty' ? ['fetch_weather', 'steady'] : ['calm__fetch_weather', 'calm__steady', 'shifty__fetch_weather', 'shifty__steady'],
      );
      assert.equal(pinned[tool]?.definition.description, ORIGINAL);

      ws.write('shifty.json', json({ description: CHANGED }));
      await run(ws, config, async (gateway) => {
        if (onChange === 'warn') {
          assert.equal(await descriptionOf(gateway, 'shifty__fetch_weather'), CHANGED);
          assert.equal(textOf(await callTool(gateway.client, { name: 'shifty__fetch_weather', arguments: { city: 'Oslo' } })), 'Sunny in Oslo');
          await gateway.waitForStderr(/pin: tool \\"fetch_weather\\" changed since it was pinned \(description differs\); shown anyway: review the change and accept it with `mcp-chain pin accept fetch_weather --namespace shifty --store /);
        } else if (onChange === 'hide') {
          assert.deepEqual(await names(gateway), ['calm__fetch_weather', 'calm__steady', 'shifty__steady']);
          const error = await refusal(gateway, 'shifty__fetch_weather');
          assert.equal(error.code, -32602);
          assert.match(error.message, /Tool "shifty__fetch_weather" changed since it was pinned \(description\); it is hidden until a person reviews the change: run `mcp-chain pin accept shifty__fetch_weather --namespace gateway --store /);
          assert.equal(textOf(await callTool(gateway.client, { name: 'shifty__steady', arguments: {} })), 'steady');
        } else {
          assert.deepEqual(await names(gateway), ['calm__fetch_weather', 'calm__steady'], "the changed server's tools are all hidden; the other server's are not");
          // In a server's own list, the gateway no longer lists the server's tools: calls to them are
          // the gateway's own refusal (the reason is in the log); pin's own refusal is in the unit tests.
          const error = await refusal(gateway, 'shifty__steady');
          assert.equal(error.code, -32602);
          assert.match(error.message, /Unknown tool: shifty__steady/);
          await gateway.waitForStderr(/pin: tool \\"fetch_weather\\" changed since it was pinned \(description differs\); every tool of \\"shifty\\" is blocked until a person reviews it/);
          assert.equal(textOf(await callTool(gateway.client, { name: 'calm__fetch_weather', arguments: { city: 'Rome' } })), 'Sunny in Rome');
        }
      });
      assert.equal(readStore(store).namespaces[namespace]?.[tool]?.pending?.definition.description, CHANGED, 'the change is pending');

      const status = pinCli(['status', '--store', store]);
      assert.equal(status.status, 0, status.stderr);
      assert.match(status.stdout, new RegExp(`^ {2}${namespace}: ${namespace === 'shifty' ? 2 : 4} tools pinned, 1 changed: ${tool}$`, 'm'));

      const refused = pinCli(['accept', '--store', store]);
      assert.equal(refused.status, 1);
      assert.match(refused.stdout, new RegExp(`^-  "description": ${json(ORIGINAL).replace(/[.]/g, '\\.')},$`, 'm'));
      assert.match(refused.stdout, new RegExp(`^\\+  "description": ${json(CHANGED).replace(/[.]/g, '\\.')},$`, 'm'));
      assert.match(refused.stderr, /not asking without a terminal; review the changes above and run again with --yes/);
      assert.notEqual(readStore(store).namespaces[namespace]?.[tool]?.pending, undefined, 'nothing accepted');

      const accepted = pinCli(['accept', tool, '--namespace', namespace, '--store', store, '--yes']);
      assert.equal(accepted.status, 0, accepted.stderr);
      assert.match(accepted.stdout, new RegExp(`^Accepted: ${namespace}/${tool} \\(sha256:[0-9a-f]{64}\\)$`, 'm'));

      await run(ws, config, async (gateway) => {
        assert.deepEqual(await names(gateway), ['calm__fetch_weather', 'calm__steady', 'shifty__fetch_weather', 'shifty__steady']);
        assert.equal(await descriptionOf(gateway, 'shifty__fetch_weather'), CHANGED);
        assert.equal(textOf(await callTool(gateway.client, { name: 'shifty__fetch_weather', arguments: { city: 'Oslo' } })), 'Sunny in Oslo');
      });
      assert.equal(readStore(store).namespaces[namespace]?.[tool]?.pending, undefined);
    });
  });
}

describe('pin through mcp-chain serve: a server added after the gateway\'s tools were pinned (onNew: hide)', () => {
  let ws: Workspace;

  before(() => {
    assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
    ws = workspace('mcp-chain-policy-pin-new-');
  });

  after(() => ws?.remove());

  it('run 1 pins the tools of two servers; run 2 (shifty added) hides shifty\'s as new; pin status and accept --config show and accept one; run 3 shows it', T, async () => {
    const middleware = [{ pin: { store: 'pins.json', onNew: 'hide' } }];
    const calm = fixtureEntry('shifty', { SHIFTY_DESCRIPTION: ORIGINAL });
    const quiet = fixtureEntry('shifty', { SHIFTY_DESCRIPTION: ORIGINAL });
    // Two servers from the start, so that their tools are prefixed in both runs.
    const before = ws.write('before.json', json({ mcpServers: { calm, quiet }, middleware }));
    const config = ws.write('mcp-chain.config.json', json({ mcpServers: { calm, quiet, shifty: fixtureEntry('shifty', { SHIFTY_DESCRIPTION: ORIGINAL }) }, middleware }));
    const store = ws.path('pins.json');

    const pinnedNames = ['calm__fetch_weather', 'calm__steady', 'quiet__fetch_weather', 'quiet__steady'];
    await run(ws, before, async (gateway) => {
      assert.deepEqual(await names(gateway), pinnedNames);
    });
    await run(ws, config, async (gateway) => {
      assert.deepEqual(await names(gateway), pinnedNames);
      const error = await refusal(gateway, 'shifty__steady');
      assert.equal(error.code, -32602);
      assert.match(error.message, /Tool "shifty__steady" is new since the tools of "gateway" were pinned; it is hidden until a person reviews it: run `mcp-chain pin accept shifty__steady --namespace gateway --store /);
    });
    const held = readStore(store) as PinFileShape & { pendingNew?: Record<string, Record<string, unknown>> };
    assert.deepEqual(Object.keys(held.pendingNew?.gateway ?? {}).sort(), ['shifty__fetch_weather', 'shifty__steady']);

    const status = pinCli(['status', '--config', config]);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^Pin store: ${store.replace(/[.]/g, '\\.')}$`, 'm'));
    assert.match(status.stdout, /^ {2}gateway: 4 tools pinned, 2 new \(not pinned\): shifty__fetch_weather, shifty__steady$/m);

    const accepted = pinCli(['accept', 'shifty__steady', '--config', config, '--yes']);
    assert.equal(accepted.status, 0, accepted.stderr);
    assert.match(accepted.stdout, /^Tool "shifty__steady" of "gateway" is new since its tools were pinned:$/m);
    assert.match(accepted.stdout, /^\+ {2}"description": "Never changes\.",$/m);
    assert.match(accepted.stdout, /^Accepted: gateway\/shifty__steady \(sha256:[0-9a-f]{64}\) in /m);

    await run(ws, config, async (gateway) => {
      assert.deepEqual(await names(gateway), [...pinnedNames, 'shifty__steady']);
      assert.equal(textOf(await callTool(gateway.client, { name: 'shifty__steady', arguments: {} })), 'steady');
    });
  });
});

forEachTransport(({ http, flag }) => {
  describe(`pin in front of server-everything through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let config: string;

    before(() => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-pin-everything-');
      config = ws.write(
        'mcp-chain.config.json',
        json({
          mcpServers: { everything: { command: process.execPath, args: [serverBin('server-everything')] } },
          middleware: [{ pin: { store: 'pins.json', onChange: 'block', scan: { action: 'hide' } } }],
        }),
      );
    });

    after(() => ws?.remove());

    it('its tools are pinned at the first list and listed unchanged, then and at the next session', T, async () => {
      let first: Tool[] = [];
      for (let session = 0; session < 2; session++) {
        const gateway = await connectClient(gatewayTarget(config, { http }), { capabilities: {} });
        try {
          const tools = (await listAll(gateway.client, 'tools')).items;
          if (session === 0) first = tools;
          else assert.deepEqual(tools, first);
          assert.ok(tools.some((tool) => tool.name === 'echo'));
          assert.equal(textOf(await callTool(gateway.client, { name: 'echo', arguments: { message: 'hi' } })), 'Echo: hi');
        } finally {
          await gateway.close();
        }
      }
      const direct = await connectClient(directTarget(referenceEntry('server-everything')), { capabilities: {} });
      try {
        const own = (await listAll(direct.client, 'tools')).items;
        assert.deepEqual(first, own, 'listed as the server lists them (one server: under its own names)');
      } finally {
        await direct.close();
      }
      const pinned = readStore(ws.path('pins.json')).namespaces.gateway ?? {};
      assert.deepEqual(Object.keys(pinned).sort(), first.map((tool) => tool.name).sort());
      for (const tool of first) {
        const entry = pinned[tool.name];
        assert.equal(entry?.pending, undefined, tool.name);
        assert.equal(entry?.definition.description, tool.description, tool.name);
        assert.deepEqual(entry?.definition.inputSchema, tool.inputSchema, tool.name);
      }
    });
  });
});
