import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { closeNames } from './close-names.js';
import { ToolIndex } from './tool-index.js';
import { splitWords, stem, tokenize } from './tokenize.js';

const tool = (name: string, description = '', properties: string[] = []) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])) },
});

describe('tokenize', () => {
  test('names split at __, _, -, camelCase and acronyms; text at anything not a letter or digit', () => {
    assert.deepEqual(splitWords('github__create_pull_request'), ['github', 'create', 'pull', 'request']);
    assert.deepEqual(splitWords('getHTTPResponseCode'), ['get', 'http', 'response', 'code']);
    assert.deepEqual(splitWords("trigger-long-running-operation, today's agenda (e.g. A1)"), ['trigger', 'long', 'running', 'operation', 'today', 'agenda', 'a1']);
  });

  test('a light stem joins plurals and verb forms', () => {
    for (const [a, b] of [['issues', 'issue'], ['queries', 'query'], ['crashes', 'crashed'], ['creating', 'created'], ['create', 'creates'], ['mapped', 'map'], ['searches', 'search']]) {
      assert.equal(stem(a as string), stem(b as string), `${a} ~ ${b}`);
    }
    assert.equal(stem('status'), 'status');
    assert.equal(stem('pull'), 'pull');
  });

  test('function words are dropped unless nothing else is left', () => {
    assert.deepEqual(tokenize('what is on my calendar'), ['calendar']);
    assert.deepEqual(tokenize('what is it'), ['what', 'is', 'it']);
  });
});

describe('ToolIndex', () => {
  const index = new ToolIndex([
    tool('a__send_email', 'Send an email message to recipients', ['to', 'subject', 'body']),
    tool('a__list_emails', 'List the emails in the inbox'),
    tool('b__post_message', 'Post a message to a channel', ['channel', 'text']),
    tool('b__get_weather', 'Current weather for a city', ['city']),
    { name: 'no_description' },
    { description: 'no name is skipped' },
  ]);

  test('ranks by name, description and argument names; tools that match nothing are left out', () => {
    assert.equal(index.size, 5);
    assert.deepEqual(index.search('weather', 10).map((t) => t.name), ['b__get_weather']);
    assert.deepEqual(index.search('city', 10).map((t) => t.name), ['b__get_weather']);
    assert.equal(index.search('send email', 10)[0]?.name, 'a__send_email');
    assert.deepEqual(index.search('quantum', 10), []);
  });

  test('synonyms and longer words count, less than the word itself', () => {
    assert.equal(index.search('publish a message', 10)[0]?.name, 'b__post_message');
    assert.equal(index.search('mail', 10).length, 0);
    assert.equal(index.search('emai', 10)[0]?.name, 'a__list_emails');
  });

  test('a query that names a server prefers its tools', () => {
    assert.equal(index.search('message', 10)[0]?.name, 'b__post_message');
    assert.equal(index.search('a message', 10)[0]?.name, 'b__post_message', '"a" is a function word, not server a');
  });

  test('limit, scores best first, ties by name', () => {
    const found = index.search('email message', 2);
    assert.equal(found.length, 2);
    assert.ok((found[0]?.score ?? 0) >= (found[1]?.score ?? 0));
    const tied = new ToolIndex([tool('z', 'same words'), tool('y', 'same words')]).search('words', 5);
    assert.deepEqual(tied.map((t) => t.name), ['y', 'z']);
  });
});

describe('closeNames', () => {
  test('names within a few edits, or that contain the name, closest first', () => {
    const names = ['github__create_issue', 'github__get_issue', 'gitlab__create_issue', 'slack__post_message'];
    assert.deepEqual(closeNames('github__create_isue', names, 3), ['github__create_issue', 'gitlab__create_issue', 'github__get_issue']);
    assert.deepEqual(closeNames('post_message', names, 3), ['slack__post_message']);
    assert.deepEqual(closeNames('zzz', names, 3), []);
  });
});
