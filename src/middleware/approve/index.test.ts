import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import { captureLogger } from '../../config/_test/config-files.js';
import { ChainError } from '../../errors/chain-error.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness, type Harness, type HarnessOptions } from '../../testing/harness.js';
import { withDeadline } from '../../testing/with-deadline.js';
import { scripted, type Scripted } from '../_test/scripted.js';
import { audit, type AuditRecord } from '../audit/index.js';
import { approve, APPROVAL_DENIED, type ApproveOptions } from './index.js';

const FORM = { elicitation: {} };

/** A server whose tools say different things about themselves; every call is recorded. */
function server(): Scripted {
  return scripted({
    'tools/list': () => ({
      tools: [
        { name: 'delete_repo', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
        { name: 'read_file', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        { name: 'say_nothing', inputSchema: { type: 'object' } },
        { name: 'append_log', inputSchema: { type: 'object' }, annotations: { destructiveHint: false, idempotentHint: false } },
      ],
    }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: `ran ${String(params.name)}` }] }),
  });
}

interface Setup {
  h: Harness;
  upstream: Scripted;
  /** The params of every elicitation/create the client was sent. */
  questions: JsonObject[];
}

const open: Harness[] = [];

async function setup(options: ApproveOptions, harnessOptions: HarnessOptions = { capabilities: FORM }, upstream = server()): Promise<Setup> {
  const h = await harness(chain(approve(options)).to(upstream), harnessOptions);
  open.push(h);
  const questions: JsonObject[] = [];
  h.handle('elicitation/create', (params) => {
    questions.push(params);
    return { action: 'accept', content: {} };
  });
  return { h, upstream, questions };
}

/** Answers every question with `answer`, recording the questions. */
function answering(s: Setup, answer: JsonObject): void {
  s.h.handle('elicitation/create', (params) => {
    s.questions.push(params);
    return answer;
  });
}

const calls = (upstream: Scripted): string[] =>
  upstream.received.filter((m) => m.method === 'tools/call').map((m) => String(m.params?.name));

const text = (value: string): JsonObject => ({ isError: true, content: [{ type: 'text', text: value }] });

after(async () => {
  for (const h of open) await h.close();
});

describe('approve: asking the user', () => {
  test('accept: the question names the tool and shows its arguments, then the call runs', async () => {
    const s = await setup({ tools: ['delete_*'] });
    const result = await s.h.request('tools/call', { name: 'delete_repo', arguments: { repo: 'acme/site', force: true } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'ran delete_repo' }] });
    assert.deepEqual(s.questions, [
      {
        message: 'Allow the tool "delete_repo" to run?\nArguments: {"repo":"acme/site","force":true}',
        requestedSchema: {
          type: 'object',
          properties: { always: { type: 'boolean', title: 'Always allow', description: 'Always allow delete_repo for this session', default: false } },
        },
      },
    ]);
    assert.deepEqual(calls(s.upstream), ['delete_repo']);
  });

  test('decline: an isError result the model can read, and nothing reaches the server', async () => {
    const s = await setup({ tools: ['delete_repo'] });
    answering(s, { action: 'decline' });
    const result = await s.h.request('tools/call', { name: 'delete_repo', arguments: {} });
    assert.deepEqual(result, text('The user declined to run "delete_repo"; it did not run. Do not try it again unless the user asks for it.'));
    assert.deepEqual(calls(s.upstream), []);
  });

  test('cancel: denied as cancelled', async () => {
    const s = await setup({ tools: ['delete_repo'] });
    answering(s, { action: 'cancel' });
    const result = await s.h.request('tools/call', { name: 'delete_repo' });
    assert.deepEqual(result, text('The user cancelled the approval of "delete_repo" (dismissed the question); it did not run.'));
    assert.deepEqual(calls(s.upstream), []);
  });

  test('tools that match no rule, and other methods, are not asked about', async () => {
    const s = await setup({ tools: ['delete_*'] });
    await s.h.request('tools/list');
    assert.deepEqual(await s.h.request('tools/call', { name: 'read_file' }), { content: [{ type: 'text', text: 'ran read_file' }] });
    assert.deepEqual(s.questions, []);
  });

  test('a message template fills in {tool} and {arguments}; long strings are cut', async () => {
    const s = await setup({ tools: ['*'], message: 'OK to run {tool}? {arguments} ({tool})' });
    await s.h.request('tools/call', { name: 'say_nothing', arguments: { body: 'x'.repeat(250), note: '{tool}' } });
    assert.equal(s.questions[0]?.message, `OK to run say_nothing? {"body":"${'x'.repeat(200)}… (50 more characters)","note":"{tool}"} (say_nothing)`);
  });

  test('the arguments are shown in at most 2000 characters', async () => {
    const s = await setup({ tools: ['*'], message: '{arguments}' });
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, 'y'.repeat(100)]));
    await s.h.request('tools/call', { name: 'say_nothing', arguments: many });
    const shown = String(s.questions[0]?.message);
    assert.equal(shown.length, 2000);
    assert.ok(shown.startsWith('{"key0":"yyy') && shown.endsWith('…'), shown.slice(-20));
  });

  test('an answer that is not accept, decline or cancel denies the call', async () => {
    const s = await setup({ tools: ['delete_repo'] });
    answering(s, { action: 'maybe' });
    const result = await s.h.request('tools/call', { name: 'delete_repo' });
    assert.deepEqual(result, text(`"delete_repo" needs the user's approval, and the client's answer to the question was not understood; it did not run.`));
    assert.deepEqual(calls(s.upstream), []);
  });
});

describe('approve: clients that cannot be asked', () => {
  test("fallback 'deny' (the default): denied without asking", async () => {
    const s = await setup({ tools: ['delete_repo'] }, { capabilities: {} });
    const result = await s.h.request('tools/call', { name: 'delete_repo' });
    assert.deepEqual(result, text(`"delete_repo" needs the user's approval, and this client cannot ask for it (it does not support elicitation); it did not run.`));
    assert.deepEqual(s.questions, []);
    assert.equal(s.h.received.some((m) => (m as JsonObject).method === 'elicitation/create'), false);
    assert.deepEqual(calls(s.upstream), []);
  });

  test("fallback 'allow': the call runs and a warning names the tool", async () => {
    const log = captureLogger();
    const s = await setup({ tools: ['delete_repo'], fallback: 'allow' }, { capabilities: {}, log });
    assert.deepEqual(await s.h.request('tools/call', { name: 'delete_repo' }), { content: [{ type: 'text', text: 'ran delete_repo' }] });
    const warnings = log.lines.filter((line) => line.level === 'warn' && line.message.startsWith('approve:'));
    assert.deepEqual(
      warnings.map((line) => [line.message, line.fields.tool]),
      [['approve: "delete_repo" runs without approval: the client cannot be asked (no elicitation), and fallback is allow', 'delete_repo']],
    );
  });

  test('elicitation { url: {} } alone is URL mode only: no form, so the fallback applies', async () => {
    const s = await setup({ tools: ['delete_repo'] }, { capabilities: { elicitation: { url: {} } } });
    assert.equal((await s.h.request('tools/call', { name: 'delete_repo' })).isError, true);
    assert.deepEqual(s.questions, []);
  });

  test('elicitation { form: {} } (and { form, url }) is asked', async () => {
    for (const elicitation of [{ form: {} }, { form: {}, url: {} }]) {
      const s = await setup({ tools: ['delete_repo'] }, { capabilities: { elicitation } });
      assert.deepEqual(await s.h.request('tools/call', { name: 'delete_repo' }), { content: [{ type: 'text', text: 'ran delete_repo' }] });
      assert.equal(s.questions.length, 1);
    }
  });

  test('a client that answers the question with an error (-32601) gets the fallback: deny, or allow', async () => {
    const denied = await setup({ tools: ['delete_repo'] }, { capabilities: FORM, log: silentLogger });
    denied.h.handle('elicitation/create', () => Promise.reject(new Error('not here')));
    const refused = await harness(chain(approve({ tools: ['delete_repo'] })).to(server()), { capabilities: FORM, log: silentLogger });
    open.push(refused); // no handler: the harness answers -32601 Method not found
    for (const h of [denied.h, refused]) {
      assert.deepEqual(
        await h.request('tools/call', { name: 'delete_repo' }),
        text(`"delete_repo" needs the user's approval, and asking the user failed (the client answered with an error); it did not run.`),
      );
    }
    const log = captureLogger();
    const allowed = await harness(chain(approve({ tools: ['delete_repo'], fallback: 'allow' })).to(server()), { capabilities: FORM, log });
    open.push(allowed);
    assert.deepEqual(await allowed.request('tools/call', { name: 'delete_repo' }), { content: [{ type: 'text', text: 'ran delete_repo' }] });
    assert.deepEqual(
      log.lines.filter((line) => line.level === 'warn' && line.message.startsWith('approve:')).map((line) => line.message),
      ['approve: asking the user failed', 'approve: "delete_repo" runs without approval: asking the user failed, and fallback is allow'],
    );
  });
});

describe('approve: always for this session', () => {
  test('"always" ticked: later calls of that tool in the session are not asked; other tools and other sessions are', async () => {
    const upstream = server();
    const mw = approve({ tools: ['delete_repo', 'say_nothing'] });
    const first = await harness(chain(mw).to(upstream), { capabilities: FORM });
    const second = await harness(chain(mw).to(upstream), { capabilities: FORM });
    open.push(first, second);
    const asked: string[] = [];
    for (const [who, h] of [['first', first], ['second', second]] as const) {
      h.handle('elicitation/create', (params) => {
        asked.push(`${who}: ${String(params.message).split('\n')[0]}`);
        return { action: 'accept', content: { always: true } };
      });
    }
    await first.request('tools/call', { name: 'delete_repo' });
    await first.request('tools/call', { name: 'delete_repo' });
    await first.request('tools/call', { name: 'say_nothing' });
    await second.request('tools/call', { name: 'delete_repo' });
    assert.deepEqual(asked, [
      'first: Allow the tool "delete_repo" to run?',
      'first: Allow the tool "say_nothing" to run?',
      'second: Allow the tool "delete_repo" to run?',
    ]);
    assert.deepEqual(calls(upstream), ['delete_repo', 'delete_repo', 'say_nothing', 'delete_repo']);
  });

  test('accepted without "always": asked again next time', async () => {
    const s = await setup({ tools: ['delete_repo'] });
    answering(s, { action: 'accept', content: { always: false } });
    await s.h.request('tools/call', { name: 'delete_repo' });
    await s.h.request('tools/call', { name: 'delete_repo' });
    assert.equal(s.questions.length, 2);
  });

  test('rememberForSession false: no "always" in the form, and an "always" answer is not remembered', async () => {
    const s = await setup({ tools: ['delete_repo'], rememberForSession: false });
    answering(s, { action: 'accept', content: { always: true } });
    await s.h.request('tools/call', { name: 'delete_repo' });
    await s.h.request('tools/call', { name: 'delete_repo' });
    assert.equal(s.questions.length, 2);
    assert.deepEqual(s.questions[0]?.requestedSchema, { type: 'object', properties: {} });
  });
});

/** A question the client holds open until the test answers it. */
interface Question {
  /** The `tag` argument of the call asked about. */
  tag: string;
  params: JsonObject;
  answer(result: JsonObject): void;
}

interface Queued {
  h: Harness;
  upstream: Scripted;
  /** What happened, in order: `asked <tag>`, `answered <tag>`. */
  events: string[];
  /** Resolves with the next question the client is sent (or one already sent and not yet taken). */
  asked(): Promise<Question>;
  /** Resolves when the call tagged `tag` has reached approve (which runs at once, up to its first wait). */
  reached(tag: string): Promise<void>;
  /** What approve recorded for audit, per call tag, once the call is done. */
  approvals: Map<string, unknown>;
}

const tagOf = (args: unknown): string => String((args as JsonObject | undefined)?.tag);

/**
 * approve behind a spy that tells when each call reaches it, with a client that holds every
 * question open until the test answers it. Calls carry `arguments: { tag }`.
 */
async function queued(options: ApproveOptions): Promise<Queued> {
  const arrivals = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const arrival = (tag: string): { promise: Promise<void>; resolve: () => void } => {
    let entry = arrivals.get(tag);
    if (entry === undefined) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      arrivals.set(tag, (entry = { promise, resolve }));
    }
    return entry;
  };
  const approvals = new Map<string, unknown>();
  const spy: Middleware = async (ctx, next) => {
    if (ctx.method !== 'tools/call') return next();
    const tag = tagOf(ctx.message.params?.arguments);
    const reply = next(); // approve runs now, synchronously up to its first await
    arrival(tag).resolve();
    try {
      return await reply;
    } finally {
      approvals.set(tag, ctx.state.auditExtra?.approval);
    }
  };
  const upstream = server();
  const h = await harness(chain(spy, approve(options)).to(upstream), { capabilities: FORM });
  open.push(h);
  const events: string[] = [];
  const pending: Question[] = [];
  const takers: Array<(question: Question) => void> = [];
  h.handle(
    'elicitation/create',
    (params) =>
      new Promise<JsonObject>((resolve) => {
        const tag = /"tag":"([^"]*)"/.exec(String(params.message))?.[1] ?? '?';
        events.push(`asked ${tag}`);
        const question: Question = {
          tag,
          params,
          answer: (result) => {
            events.push(`answered ${tag}`);
            resolve(result);
          },
        };
        const take = takers.shift();
        if (take) take(question);
        else pending.push(question);
      }),
  );
  return {
    h,
    upstream,
    events,
    approvals,
    asked: () => {
      const question = pending.shift();
      return withDeadline(question ? Promise.resolve(question) : new Promise<Question>((resolve) => takers.push(resolve)), { what: 'a question to the client' });
    },
    reached: (tag) => withDeadline(arrival(tag).promise, { what: `the call tagged ${tag} reaching approve` }),
  };
}

const ran = (tool: string): JsonObject => ({ content: [{ type: 'text', text: `ran ${tool}` }] });

/** The tags of the calls that reached the server, in order. */
const forwarded = (upstream: Scripted): string[] =>
  upstream.received.filter((m) => m.method === 'tools/call').map((m) => tagOf(m.params?.arguments));

describe('approve: calls of a tool while the user is being asked about it', () => {
  test('a second call waits for the answer; accept with "always" lets it run without a question', async () => {
    const q = await queued({ tools: ['delete_repo'] });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    const question = await q.asked();
    const second = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'b' } });
    await q.reached('b');
    await q.h.request('ping'); // had b been asked at once, its question would be here by now
    question.answer({ action: 'accept', content: { always: true } });
    assert.deepEqual(await first, ran('delete_repo'));
    assert.deepEqual(await second, ran('delete_repo'));
    assert.deepEqual(q.events, ['asked a', 'answered a']);
    assert.deepEqual(forwarded(q.upstream), ['a', 'b']);
    assert.deepEqual(q.approvals.get('a'), { decision: 'approved', reason: 'user', by: 'user', remembered: true });
    assert.deepEqual(q.approvals.get('b'), { decision: 'approved', reason: 'session', by: 'user' });
  });

  test('accept without "always": the waiting call is asked next, with its own arguments', async () => {
    const q = await queued({ tools: ['delete_repo'] });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    const question = await q.asked();
    const second = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'b' } });
    await q.reached('b');
    await q.h.request('ping');
    question.answer({ action: 'accept', content: { always: false } });
    const next = await q.asked();
    assert.equal(next.params.message, 'Allow the tool "delete_repo" to run?\nArguments: {"tag":"b"}');
    next.answer({ action: 'accept' });
    assert.deepEqual(await first, ran('delete_repo'));
    assert.deepEqual(await second, ran('delete_repo'));
    assert.deepEqual(q.events, ['asked a', 'answered a', 'asked b', 'answered b']);
    assert.deepEqual(forwarded(q.upstream), ['a', 'b']);
    assert.deepEqual(q.approvals.get('b'), { decision: 'approved', reason: 'user', by: 'user' });
  });

  test('decline on the first: the waiting call is still asked', async () => {
    const q = await queued({ tools: ['delete_repo'] });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    const question = await q.asked();
    const second = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'b' } });
    await q.reached('b');
    await q.h.request('ping');
    question.answer({ action: 'decline' });
    const next = await q.asked();
    assert.equal(next.tag, 'b');
    next.answer({ action: 'accept' });
    assert.equal((await first).isError, true);
    assert.deepEqual(await second, ran('delete_repo'));
    assert.deepEqual(q.events, ['asked a', 'answered a', 'asked b', 'answered b']);
    assert.deepEqual(forwarded(q.upstream), ['b']);
  });

  test('the waiting call cancelled by the client: it is not asked, nothing is forwarded, and the queue goes on', async () => {
    const q = await queued({ tools: ['delete_repo'] });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    const question = await q.asked();
    q.h.send({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'delete_repo', arguments: { tag: 'b' } } });
    await q.reached('b');
    q.h.notify('notifications/cancelled', { requestId: 'c2', reason: 'changed my mind' });
    await q.h.request('ping'); // the cancellation has been read
    question.answer({ action: 'accept' });
    assert.deepEqual(await first, ran('delete_repo'));
    // A later call is asked at once (about itself): the cancelled one left the queue.
    const third = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'c' } });
    const next = await q.asked();
    assert.equal(next.tag, 'c');
    next.answer({ action: 'accept' });
    assert.deepEqual(await third, ran('delete_repo'));
    assert.deepEqual(q.events, ['asked a', 'answered a', 'asked c', 'answered c']);
    assert.deepEqual(forwarded(q.upstream), ['a', 'c']);
    assert.equal(q.h.received.some((m) => (m as JsonObject).id === 'c2'), false);
  });

  test('a call of another tool is asked at once, while the first question is open', async () => {
    const q = await queued({ tools: ['delete_repo', 'say_nothing'] });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    const question = await q.asked();
    const other = q.h.request('tools/call', { name: 'say_nothing', arguments: { tag: 'b' } });
    const otherQuestion = await q.asked();
    assert.equal(otherQuestion.params.message, 'Allow the tool "say_nothing" to run?\nArguments: {"tag":"b"}');
    otherQuestion.answer({ action: 'accept' });
    assert.deepEqual(await other, ran('say_nothing'));
    question.answer({ action: 'accept' });
    assert.deepEqual(await first, ran('delete_repo'));
    assert.deepEqual(q.events, ['asked a', 'asked b', 'answered b', 'answered a']);
  });

  test('no answer in time: the waiting call is denied too (timeoutMs counts from its arrival), and nothing runs', async () => {
    const q = await queued({ tools: ['delete_repo'], timeoutMs: 50 });
    const first = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'a' } });
    await q.asked();
    const second = q.h.request('tools/call', { name: 'delete_repo', arguments: { tag: 'b' } });
    const timedOut = text('Nobody approved "delete_repo" within 50 ms; it did not run.');
    assert.deepEqual(await first, timedOut);
    assert.deepEqual(await second, timedOut);
    assert.deepEqual(q.approvals.get('b'), { decision: 'denied', reason: 'timeout', by: 'policy' });
    assert.deepEqual(forwarded(q.upstream), []);
  });
});

describe('approve: annotations', () => {
  test('{ destructiveHint: true }: destructive and un-annotated tools are asked; read-only and non-destructive ones are not', async () => {
    const s = await setup({ annotations: { destructiveHint: true } });
    await s.h.request('tools/list');
    for (const name of ['delete_repo', 'read_file', 'say_nothing', 'append_log']) await s.h.request('tools/call', { name });
    assert.deepEqual(s.questions.map((q) => String(q.message).split('"')[1]), ['delete_repo', 'say_nothing']);
    assert.deepEqual(calls(s.upstream), ['delete_repo', 'read_file', 'say_nothing', 'append_log']);
  });

  test('a tool called before any tools/list has the spec defaults (destructive, not read-only)', async () => {
    const s = await setup({ annotations: { destructiveHint: true } });
    await s.h.request('tools/call', { name: 'read_file' });
    assert.equal(s.questions.length, 1);
  });

  test('every hint given must match: { readOnlyHint: false, idempotentHint: false }', async () => {
    const s = await setup({ annotations: { readOnlyHint: false, idempotentHint: false } });
    await s.h.request('tools/list');
    for (const name of ['delete_repo', 'read_file', 'say_nothing', 'append_log']) await s.h.request('tools/call', { name });
    assert.deepEqual(s.questions.map((q) => String(q.message).split('"')[1]), ['delete_repo', 'say_nothing', 'append_log']);
  });

  test('a call matches tools OR annotations', async () => {
    const s = await setup({ tools: ['read_*'], annotations: { destructiveHint: true } });
    await s.h.request('tools/list');
    for (const name of ['delete_repo', 'read_file', 'append_log']) await s.h.request('tools/call', { name });
    assert.deepEqual(s.questions.map((q) => String(q.message).split('"')[1]), ['delete_repo', 'read_file']);
  });

  test('after tools/list_changed the hints are forgotten until the tools are listed again', async () => {
    const s = await setup({ annotations: { destructiveHint: true } });
    await s.h.request('tools/list');
    await s.h.request('tools/call', { name: 'read_file' });
    const changed = s.h.notification('notifications/tools/list_changed');
    await s.upstream.notify('notifications/tools/list_changed');
    await changed;
    await s.h.request('tools/call', { name: 'read_file' });
    await s.h.request('tools/list');
    await s.h.request('tools/call', { name: 'read_file' });
    assert.equal(s.questions.length, 1);
  });

  test('pages of tools/list add to what was learnt; a first page starts over', async () => {
    const pages: Record<string, JsonObject> = {
      '': { tools: [{ name: 'a', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }], nextCursor: 'p2' },
      p2: { tools: [{ name: 'b', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] },
    };
    const upstream = scripted({
      'tools/list': (params) => pages[typeof params.cursor === 'string' ? params.cursor : ''] ?? { tools: [] },
      'tools/call': () => ({ content: [] }),
    });
    const s = await setup({ annotations: { destructiveHint: true } }, { capabilities: FORM }, upstream);
    await s.h.request('tools/list');
    await s.h.request('tools/list', { cursor: 'p2' });
    await s.h.request('tools/call', { name: 'a' });
    await s.h.request('tools/call', { name: 'b' });
    assert.equal(s.questions.length, 0);
    pages[''] = { tools: [{ name: 'a', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] };
    await s.h.request('tools/list');
    await s.h.request('tools/call', { name: 'b' });
    assert.equal(s.questions.length, 1);
  });

  test('each session learns from its own lists', async () => {
    const upstream = server();
    const mw = approve({ annotations: { destructiveHint: true } });
    const listed = await harness(chain(mw).to(upstream), { capabilities: FORM });
    const unlisted = await harness(chain(mw).to(upstream), { capabilities: FORM });
    open.push(listed, unlisted);
    let asked = 0;
    for (const h of [listed, unlisted]) h.handle('elicitation/create', () => (asked++, { action: 'accept' }));
    await listed.request('tools/list');
    await listed.request('tools/call', { name: 'read_file' });
    assert.equal(asked, 0);
    await unlisted.request('tools/call', { name: 'read_file' });
    assert.equal(asked, 1);
  });
});

describe('approve: time and cancellation', () => {
  test('no answer within timeoutMs: denied, and the question is cancelled', async () => {
    const s = await setup({ tools: ['delete_repo'], timeoutMs: 50 });
    let questionId: unknown;
    s.h.handle('elicitation/create', () => new Promise<JsonObject>(() => undefined));
    const asked = s.h.waitFor((m) => m.method === 'elicitation/create').then((m) => (questionId = m.id));
    const cancelled = s.h.notification('notifications/cancelled');
    const result = await s.h.request('tools/call', { name: 'delete_repo' });
    await asked;
    assert.deepEqual(result, text('Nobody approved "delete_repo" within 50 ms; it did not run.'));
    assert.equal(((await cancelled).params as JsonObject).requestId, questionId);
    assert.deepEqual(calls(s.upstream), []);
  });

  test('the call cancelled while waiting: the question is cancelled too, and nothing is forwarded', async () => {
    const s = await setup({ tools: ['delete_repo'] });
    s.h.handle('elicitation/create', () => new Promise<JsonObject>(() => undefined));
    const question = s.h.waitFor((m) => m.method === 'elicitation/create');
    s.h.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'delete_repo' } });
    const { id } = await question;
    const cancelled = s.h.notification('notifications/cancelled');
    s.h.notify('notifications/cancelled', { requestId: 'c1', reason: 'changed my mind' });
    assert.equal(((await cancelled).params as JsonObject).requestId, id);
    // The session still works, and the cancelled call never reached the server.
    await s.h.request('tools/list');
    assert.deepEqual(calls(s.upstream), []);
    assert.equal(s.h.received.some((m) => (m as JsonObject).id === 'c1'), false);
  });
});

describe('approve: onDeny and configuration', () => {
  test("onDeny 'error': a JSON-RPC error -32003 with the reason in data", async () => {
    const s = await setup({ tools: ['delete_repo'], onDeny: 'error' });
    answering(s, { action: 'decline' });
    const error = await s.h.request('tools/call', { name: 'delete_repo' }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof McpError);
    assert.equal(error.code, APPROVAL_DENIED);
    assert.equal(error.code, -32003);
    assert.equal(error.message, 'The user declined to run "delete_repo"; it did not run. Do not try it again unless the user asks for it.');
    assert.deepEqual(error.data, { tool: 'delete_repo', reason: 'declined' });
  });

  test('no rule, or a bad timeout, is a ChainError CONFIG', () => {
    for (const options of [{}, { tools: [] }, { annotations: {} }, { tools: ['x'], timeoutMs: 0 }]) {
      assert.throws(() => approve(options), (error: unknown) => error instanceof ChainError && error.code === 'CONFIG', JSON.stringify(options));
    }
  });

  test("the server's own requests to the client pass untouched", async () => {
    const s = await setup({ tools: ['*'] });
    answering(s, { action: 'accept', content: { name: 'x' } });
    const params = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    assert.deepEqual(await s.upstream.ask('elicitation/create', params), { action: 'accept', content: { name: 'x' } });
    assert.deepEqual(s.questions, [params]);
  });
});

describe('approve: the decision goes to audit', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-chain-approve-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('audit in front records who decided what; what others put in auditExtra stays', async () => {
    const file = join(dir, 'audit.jsonl');
    const recorder = audit({ file, logger: silentLogger });
    const other: Middleware = (ctx, next) => {
      if (ctx.method === 'tools/call') ctx.state.auditExtra = { ...ctx.state.auditExtra, ticket: 'OPS-1' };
      return next();
    };
    const upstream = server();
    const mw = approve({ tools: ['delete_repo', 'say_nothing'], timeoutMs: 50 });
    const alice = await harness(chain(recorder, other, mw).to(upstream), { capabilities: FORM, identity: { id: 'alice', method: 'bearer' } });
    const anonymous = await harness(chain(recorder, other, mw).to(upstream), { capabilities: {} });
    open.push(alice, anonymous);
    const answers: JsonObject[] = [{ action: 'accept', content: { always: true } }, { action: 'decline' }];
    alice.handle('elicitation/create', () => answers.shift() ?? new Promise<JsonObject>(() => undefined));
    await alice.request('tools/call', { name: 'delete_repo' });
    await alice.request('tools/call', { name: 'delete_repo' });
    await alice.request('tools/call', { name: 'say_nothing' });
    await alice.request('tools/call', { name: 'say_nothing' });
    await alice.request('tools/call', { name: 'read_file' });
    await anonymous.request('tools/call', { name: 'delete_repo' });
    await recorder.close();
    const records = (await readFile(file, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as AuditRecord);
    assert.deepEqual(
      records.map((r) => [r.tool, r.outcome, r.ticket, r.approval]),
      [
        ['delete_repo', 'ok', 'OPS-1', { decision: 'approved', reason: 'user', by: 'alice', remembered: true }],
        ['delete_repo', 'ok', 'OPS-1', { decision: 'approved', reason: 'session', by: 'alice' }],
        ['say_nothing', 'isError', 'OPS-1', { decision: 'denied', reason: 'declined', by: 'alice' }],
        ['say_nothing', 'isError', 'OPS-1', { decision: 'denied', reason: 'timeout', by: 'policy' }],
        ['read_file', 'ok', 'OPS-1', undefined],
        ['delete_repo', 'isError', 'OPS-1', { decision: 'denied', reason: 'fallback', by: 'policy' }],
      ],
    );
  });
});
