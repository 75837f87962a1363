import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { ScriptedMember, tool } from './_test/scripted-member.js';
import { aggregate } from './aggregate.js';
import type { AggregateMember, AggregateOptions } from './aggregate-options.js';

const URL_ELICITATION_REQUIRED = -32042;
const LOGIN_URL = 'https://as.example/authorize?client_id=c&state=s';
const COMMAND = 'mcp-chain auth login remote';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

/** A remote member that needs a login until `loggedIn`: its `initialize` fails with `loginError()` until then. */
class LoginMember extends ScriptedMember {
  loggedIn = false;
  #starts = 0;
  #onStart: (() => void) | undefined;

  constructor(loginError: () => Error) {
    super({ tools: {} }, {
      'tools/list': () => ({ tools: [tool('whoami')] }),
      'tools/call': () => ({ content: [{ type: 'text', text: 'alice' }] }),
    });
    const initialize = this.handlers.get('initialize');
    assert.ok(initialize);
    this.on('initialize', (params, scope, downstream) => {
      this.#starts++;
      this.#onStart?.();
      if (!this.loggedIn) throw loginError();
      return initialize(params, scope, downstream);
    });
  }

  /** Resolves once it was asked to start `count` times in all; rejects after 10 s. */
  started(count: number): Promise<void> {
    if (this.#starts >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not started ${count} times within 10 s (${this.#starts})`)), 10_000);
      this.#onStart = () => {
        if (this.#starts < count) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function elicitationError(): McpError {
  return new McpError(URL_ELICITATION_REQUIRED, `remote needs a login: open ${LOGIN_URL} (or run \`${COMMAND}\`)`, {
    elicitations: [{ mode: 'url', elicitationId: 'e-1', url: LOGIN_URL, message: 'Log in to remote to let mcp-chain use it on your behalf.' }],
  });
}

function loginError(): McpError {
  // As the HTTP upstream gives it; its `server` is the authorizer's name for the server.
  return new McpError(ErrorCode.ConnectionClosed, `remote.example needs a login: open ${LOGIN_URL} (or run \`${COMMAND}\`)`, {
    server: 'remote.example',
    login: COMMAND,
    url: LOGIN_URL,
  });
}

function echo(): ScriptedMember {
  return new ScriptedMember({ tools: {} }, {
    'tools/list': () => ({ tools: [tool('echo')] }),
    'tools/call': () => ({ content: [{ type: 'text', text: 'echoed' }] }),
  });
}

async function start(members: AggregateMember[], retry: NonNullable<AggregateOptions['retry']>, capabilities: JsonObject = {}): Promise<Harness> {
  const h = await harness(aggregate(members, { retry }), { capabilities });
  open.push(h);
  h.notify('notifications/initialized');
  return h;
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpError, `an McpError: ${String(error)}`);
    return error;
  }
  assert.fail('it was answered');
}

function names(result: JsonObject): string[] {
  return (result.tools as { name: string }[]).map((t) => t.name);
}

// Backoff so slow that only the login's own retry can bring a member back within a test.
const SLOW_BACKOFF = { initialDelayMs: 60_000, maxDelayMs: 60_000 };

describe('aggregate: a member that needs a login', () => {
  test('a call to its tool answers the -32042 its connection gave (the URL to open); the elicitation completing brings it back at once, with list_changed', async () => {
    const remote = new LoginMember(elicitationError);
    const h = await start([{ name: 'remote', upstream: remote }, { name: 'local', upstream: echo() }], { ...SLOW_BACKOFF, loginDelayMs: 60_000 }, { elicitation: { url: {} } });
    assert.deepEqual(names(await h.request('tools/list')), ['local__echo']);

    // Not listed while it waits for the login, yet its prefix names it: the login error, not "unknown tool".
    const error = await rejection(h.request('tools/call', { name: 'remote__whoami', arguments: {} }));
    assert.equal(error.code, URL_ELICITATION_REQUIRED);
    assert.deepEqual(error.data, elicitationError().data);
    assert.equal((await rejection(h.request('tools/call', { name: 'nobody__whoami', arguments: {} }))).code, ErrorCode.InvalidParams);
    assert.deepEqual((await h.request('tools/call', { name: 'local__echo', arguments: {} })).content, [{ type: 'text', text: 'echoed' }]);

    const back = h.notification('notifications/tools/list_changed');
    remote.loggedIn = true;
    await remote.downstream?.notify({ method: 'notifications/elicitation/complete', params: { elicitationId: 'e-1' } });
    // The client hears the completion too (its elicitation), then that the tools changed.
    assert.deepEqual((await h.notification('notifications/elicitation/complete')).params, { elicitationId: 'e-1' });
    await back;
    assert.deepEqual(names(await h.request('tools/list')), ['remote__whoami', 'local__echo']);
    assert.deepEqual((await h.request('tools/call', { name: 'remote__whoami', arguments: {} })).content, [{ type: 'text', text: 'alice' }]);
  });

  test('the completion of a login the client was never given (it called nothing of that member) brings the member back but does not reach the client', async () => {
    const remote = new LoginMember(elicitationError);
    const h = await start([{ name: 'remote', upstream: remote }, { name: 'local', upstream: echo() }], { ...SLOW_BACKOFF, loginDelayMs: 60_000 }, { elicitation: { url: {} } });
    const back = h.notification('notifications/tools/list_changed');
    remote.loggedIn = true;
    await remote.downstream?.notify({ method: 'notifications/elicitation/complete', params: { elicitationId: 'e-1' } });
    await back;
    assert.deepEqual(names(await h.request('tools/list')), ['remote__whoami', 'local__echo']);
    // Other elicitations of the member (made while it serves) reach the client as they are.
    await remote.downstream?.notify({ method: 'notifications/elicitation/complete', params: { elicitationId: 'e-2' } });
    assert.deepEqual((await h.notification('notifications/elicitation/complete')).params, { elicitationId: 'e-2' });
    assert.equal(h.notifications('notifications/elicitation/complete').length, 1);
  });

  test('without an elicitation: -32000 naming the member, with the reason, the login command and the URL; a login done elsewhere is found on the short retry, not after the backoff', async () => {
    const remote = new LoginMember(loginError);
    const h = await start([{ name: 'remote', upstream: remote }, { name: 'local', upstream: echo() }], { ...SLOW_BACKOFF, loginDelayMs: 10 });

    const error = await rejection(h.request('tools/call', { name: 'remote__whoami', arguments: {} }));
    assert.equal(error.code, ErrorCode.ConnectionClosed);
    assert.match(error.message, /^Server "remote" is unavailable: remote\.example needs a login/);
    assert.deepEqual(error.data, { server: 'remote', reason: loginError().message, login: COMMAND, url: LOGIN_URL });

    // It keeps being tried on the short interval (several times, well within the 60 s backoff).
    await remote.started(3);
    const back = h.notification('notifications/tools/list_changed');
    remote.loggedIn = true;
    await back;
    assert.deepEqual((await h.request('tools/call', { name: 'remote__whoami', arguments: {} })).content, [{ type: 'text', text: 'alice' }]);
  });

  test('a lone member without a prefix: every call answers the login error while it waits', async () => {
    const remote = new LoginMember(loginError);
    const h = await start([{ name: 'remote', upstream: remote }], { ...SLOW_BACKOFF, loginDelayMs: 60_000 });
    assert.deepEqual((await h.request('tools/list')).tools, []);
    const error = await rejection(h.request('tools/call', { name: 'whoami', arguments: {} }));
    assert.deepEqual(error.data, { server: 'remote', reason: loginError().message, login: COMMAND, url: LOGIN_URL });
  });

  test('once it fails for another reason, its calls no longer carry a login', async () => {
    let login = true;
    const remote = new LoginMember(() => (login ? loginError() : new Error('connect ECONNREFUSED')));
    const h = await start([{ name: 'remote', upstream: remote }, { name: 'local', upstream: echo() }], { initialDelayMs: 60_000, maxDelayMs: 60_000, loginDelayMs: 10 });
    assert.equal((await rejection(h.request('tools/call', { name: 'remote__whoami', arguments: {} }))).code, ErrorCode.ConnectionClosed);
    login = false;
    const count = remote.received.filter((m) => m.method === 'initialize').length;
    await remote.started(count + 1);
    // Its answer is settled within the same turn of the event loop (nothing in between does I/O).
    await new Promise((resolve) => setImmediate(resolve));
    const error = await rejection(h.request('tools/call', { name: 'remote__whoami', arguments: {} }));
    assert.deepEqual(error.data, { server: 'remote', reason: 'connect ECONNREFUSED' });
  });
});
