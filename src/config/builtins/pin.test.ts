import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { PinStore } from '../../middleware/pin/index.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { pinBuiltin } from './pin.js';

const problemsOf = (options: unknown): string[] => optionProblems(pinBuiltin, options);

async function listThrough(options: Record<string, unknown>, context: { dir: string; server?: string }): Promise<void> {
  const mw = pinBuiltin.create(options, { ...context, file: join(context.dir, 'mcp-chain.json'), log: silentLogger });
  const h = await harness(chain(mw).to(local({ tools: [{ name: 'echo', description: 'Echoes', handler: () => ({ content: [] }) }] })));
  await h.request('tools/list');
  await h.close();
}

describe('pin in a config file', () => {
  test('the store is relative to the config file; the namespace is the server whose list names it', async () => {
    const dir = tempDir();
    await listThrough({ store: 'pins/pins.json', scan: { action: 'strip', maxDescriptionLength: 100 } }, { dir, server: 'github' });
    assert.deepEqual(Object.keys((await new PinStore(join(dir, 'pins/pins.json')).read()).namespaces), ['github']);
  });

  test('in the gateway\'s own list the namespace is "gateway", unless namespace names one', async () => {
    const dir = tempDir();
    await listThrough({ store: 'pins.json', onChange: 'hide', scan: false }, { dir });
    await listThrough({ store: join(dir, 'pins.json'), namespace: 'mine' }, { dir: '/elsewhere' });
    assert.deepEqual(Object.keys((await new PinStore(join(dir, 'pins.json')).read()).namespaces), ['gateway', 'mine']);
  });

  test('onNew reaches the middleware: hide holds back a tool new to a namespace that has pins', async () => {
    const dir = tempDir();
    await new PinStore(join(dir, 'pins.json')).check('srv', [{ name: 'old', hash: 'sha256:old', definition: { name: 'old' } }]);
    await listThrough({ store: 'pins.json', onNew: 'hide' }, { dir, server: 'srv' });
    const data = await new PinStore(join(dir, 'pins.json')).read();
    assert.deepEqual(Object.keys(data.namespaces.srv ?? {}), ['old']);
    assert.deepEqual(Object.keys(data.pendingNew?.srv ?? {}), ['echo']);
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ onChange: 'delete' }).length, 1);
    assert.match(problemsOf({ onChange: 'delete' })[0] ?? '', /^onChange: /);
    assert.match(problemsOf({ scan: { action: 'strip', maxDescriptionLength: 0 } })[0] ?? '', /^scan\.maxDescriptionLength: /);
    assert.equal(problemsOf({ scan: true }).length, 1);
    assert.equal(problemsOf({ store: '' }).length, 1);
    assert.equal(problemsOf({ stor: 'x.json' }).length, 1);
    assert.match(problemsOf({ onNew: 'block' })[0] ?? '', /^onNew: /);
    assert.deepEqual(problemsOf({}), []);
    for (const onNew of ['pin', 'warn', 'hide']) assert.deepEqual(problemsOf({ onNew }), [], onNew);
    assert.deepEqual(problemsOf({ store: 'p.json', namespace: 'n', onChange: 'block', scan: { action: 'hide', maxDescriptionLength: 500 } }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ pin: { store: 'pins.json', onChange: 'hide' } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['pin']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ pin: { onChange: 'explode' } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => problem.path), ['middleware[0].pin.onChange']);
  });
});
