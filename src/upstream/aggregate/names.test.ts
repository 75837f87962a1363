import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_NAMING, MIN_NAME_LENGTH, NameTable, defaultPrefix, safeName } from './names.js';

const GENERATED = /^[A-Za-z0-9_-]+$/;

/** The tool names of the servers the end-to-end tests run (server-everything 2026.8, server-filesystem, server-memory). */
const EVERYTHING_TOOLS = [
  'echo', 'get-annotated-message', 'get-env', 'get-resource-links', 'get-resource-reference', 'get-roots-list',
  'get-structured-content', 'get-sum', 'get-tiny-image', 'gzip-file-as-resource', 'simulate-research-query',
  'toggle-simulated-logging', 'toggle-subscriber-updates', 'trigger-elicitation-request',
  'trigger-elicitation-request-async', 'trigger-long-running-operation', 'trigger-sampling-request',
  'trigger-sampling-request-async', 'trigger-url-elicitation',
];
const FILESYSTEM_TOOLS = [
  'read_file', 'read_text_file', 'read_media_file', 'read_multiple_files', 'write_file', 'edit_file', 'create_directory',
  'list_directory', 'list_directory_with_sizes', 'directory_tree', 'move_file', 'search_files', 'get_file_info',
  'list_allowed_directories',
];
const MEMORY_TOOLS = [
  'create_entities', 'create_relations', 'add_observations', 'delete_entities', 'delete_observations', 'delete_relations',
  'read_graph', 'search_nodes', 'open_nodes',
];
const EVERYTHING_PROMPTS = ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt'];

/** Adds and expects a name (not hidden). */
function expose(table: NameTable, member: string, prefix: string | undefined, original: string): string {
  const result = table.add(member, prefix, original);
  assert.ok('exposed' in result, `${member}/${original} was hidden by ${'hiddenBy' in result ? result.hiddenBy : ''}`);
  return result.exposed;
}

describe('safeName and defaultPrefix', () => {
  test('map every character outside [A-Za-z0-9_-] to "_", one per UTF-16 unit, and keep the rest', () => {
    assert.equal(safeName('github'), 'github');
    assert.equal(safeName('My-Server_2'), 'My-Server_2');
    assert.equal(safeName('a.b c/d:e@f'), 'a_b_c_d_e_f');
    assert.equal(safeName('café'), 'caf_');
    assert.equal(safeName(''), '');
    assert.equal(defaultPrefix('acme.internal tools'), 'acme_internal_tools');
  });
});

describe('NameTable with prefixes', () => {
  test('names a tool <prefix>__<name>, with the name made safe', () => {
    const table = new NameTable(DEFAULT_NAMING);
    assert.equal(expose(table, 'github', 'github', 'create_issue'), 'github__create_issue');
    assert.equal(expose(table, 'fs', 'fs', 'read.file'), 'fs__read_file');
    assert.equal(expose(table, 'my.server', defaultPrefix('my.server'), 'x'), 'my_server__x');
  });

  test('makes a configured prefix safe too', () => {
    const table = new NameTable(DEFAULT_NAMING);
    assert.equal(expose(table, 'a', 'team.a', 'tool'), 'team_a__tool');
  });

  test('honours the separator option, including an empty one', () => {
    assert.equal(expose(new NameTable({ separator: '-', maxNameLength: 64 }), 'gh', 'gh', 'issues'), 'gh-issues');
    assert.equal(expose(new NameTable({ separator: '_x_', maxNameLength: 64 }), 'gh', 'gh', 'issues'), 'gh_x_issues');
    assert.equal(expose(new NameTable({ separator: '', maxNameLength: 64 }), 'gh', 'gh', 'issues'), 'ghissues');
  });

  test('refuses a separator a client might reject, and a limit with no room for the hash', () => {
    assert.throws(() => new NameTable({ separator: '.', maxNameLength: 64 }), RangeError);
    assert.throws(() => new NameTable({ separator: ':', maxNameLength: 64 }), RangeError);
    assert.throws(() => new NameTable({ separator: '__', maxNameLength: MIN_NAME_LENGTH - 1 }), RangeError);
    assert.throws(() => new NameTable({ separator: '__', maxNameLength: 40.5 }), RangeError);
    assert.doesNotThrow(() => new NameTable({ separator: '__', maxNameLength: MIN_NAME_LENGTH }));
  });

  test('keeps a name of exactly the limit, and shortens one character more', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const fits = 't'.repeat(64 - 'p__'.length);
    assert.equal(expose(table, 'p', 'p', fits), `p__${fits}`);
    const over = expose(table, 'p', 'p', `${fits}u`);
    assert.equal(over.length, 64);
    assert.match(over, /^p__t+_[a-z2-7]{8}$/);
  });

  test('shortens a long server key to fit, keeping the start of the key and as much of the tool name as fits', () => {
    const key = `server-${'k'.repeat(93)}`; // 100 characters
    assert.equal(key.length, 100);
    const table = new NameTable(DEFAULT_NAMING);
    const names = FILESYSTEM_TOOLS.map((tool) => expose(table, key, defaultPrefix(key), tool));
    for (const name of names) {
      assert.ok(name.length <= 64, `${name} is ${name.length} long`);
      assert.match(name, GENERATED);
      assert.ok(name.startsWith(`server-kkkkkkkkk`), name);
    }
    assert.equal(names[0]?.split('__')[1]?.slice(0, 'read_file'.length), 'read_file');
    assert.equal(new Set(names).size, names.length);
  });

  test('shortens a long tool name behind a short prefix, keeping the whole prefix', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const tool = `describe_${'very_'.repeat(30)}long_operation`;
    const name = expose(table, 'gh', 'gh', tool);
    assert.equal(name.length, 64);
    assert.ok(name.startsWith('gh__describe_very_very'), name);
    assert.match(name, /_[a-z2-7]{8}$/);
    assert.deepEqual(table.resolve(name), { member: 'gh', original: tool });
  });

  test('shortening is stable: the same inputs give the same names in a new table (and so across restarts)', () => {
    const key = 'x'.repeat(100);
    const build = () => {
      const table = new NameTable(DEFAULT_NAMING);
      return ['a', 'b', 'x'.repeat(200)].map((tool) => expose(table, key, key, tool));
    };
    const first = build();
    assert.deepEqual(build(), first);
    // Pinned (the hash checked against Python's base32 of SHA-256): a change to the hash or the
    // layout renames every shortened tool a client knows.
    assert.equal(first[0], `${'x'.repeat(52)}__a_${first[0]?.slice(-8)}`);
    assert.equal(expose(new NameTable(DEFAULT_NAMING), 'm', 'm', 'y'.repeat(70)), `m__${'y'.repeat(52)}_urilhoav`);
  });

  test('respects a smaller limit (Cursor: 60 for server + tool) and a tiny one', () => {
    for (const maxNameLength of [60, 32, MIN_NAME_LENGTH]) {
      const table = new NameTable({ separator: '__', maxNameLength });
      const names: string[] = [];
      for (const tool of [...EVERYTHING_TOOLS, ...FILESYSTEM_TOOLS]) names.push(expose(table, 'long-server-name-here', 'long-server-name-here', tool));
      for (const name of names) {
        assert.ok(name.length <= maxNameLength, `${name} > ${maxNameLength}`);
        assert.match(name, GENERATED);
      }
      assert.equal(new Set(names).size, names.length);
    }
  });

  test('a separator as long as the limit allows still gives names within it', () => {
    const table = new NameTable({ separator: '-'.repeat(20), maxNameLength: 24 });
    const name = expose(table, 'm', 'prefix', 'tool');
    assert.ok(name.length <= 24, name);
    assert.match(name, GENERATED);
    assert.deepEqual(table.resolve(name), { member: 'm', original: 'tool' });
  });

  test('is injective and reversible on realistic inputs: three real servers and 300 generated tools, on long and colliding keys', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const generated = Array.from({ length: 300 }, (_, i) => `tool_${i}`);
    const members: [string, readonly string[]][] = [
      ['everything', [...EVERYTHING_TOOLS, ...EVERYTHING_PROMPTS]],
      ['filesystem', FILESYSTEM_TOOLS],
      ['memory', MEMORY_TOOLS],
      [`acme-${'internal-'.repeat(8)}gateway`, generated],
      [`acme-${'internal-'.repeat(8)}gateway.v2`, generated],
      [`acme-${'internal-'.repeat(8)}gateway_v2`, generated],
      ['mem.ory', MEMORY_TOOLS], // same default prefix as 'mem_ory' below
      ['mem_ory', MEMORY_TOOLS],
    ];
    const seen = new Map<string, string>();
    for (const [member, tools] of members) {
      for (const tool of tools) {
        const name = expose(table, member, defaultPrefix(member), tool);
        assert.ok(name.length <= 64, name);
        assert.match(name, GENERATED);
        const previous = seen.get(name);
        assert.equal(previous, undefined, `${name} given to ${member}/${tool} and ${previous ?? ''}`);
        seen.set(name, `${member}/${tool}`);
        assert.deepEqual(table.resolve(name), { member, original: tool });
        assert.equal(table.exposedOf(member, tool), name);
      }
    }
    assert.equal(seen.size, members.reduce((n, [, tools]) => n + tools.length, 0));
    assert.equal(table.exposedOf('everything', 'get-sum'), 'everything__get-sum');
    assert.equal(table.exposedOf('filesystem', 'read_text_file'), 'filesystem__read_text_file');
  });

  test('two members whose keys give the same prefix: the first added keeps the plain name, the second gets a hashed one', () => {
    const table = new NameTable(DEFAULT_NAMING);
    assert.equal(expose(table, 'a.b', defaultPrefix('a.b'), 'run'), 'a_b__run');
    const second = expose(table, 'a_b', defaultPrefix('a_b'), 'run');
    assert.match(second, /^a_b__run_[a-z2-7]{8}$/);
    assert.deepEqual(table.resolve('a_b__run'), { member: 'a.b', original: 'run' });
    assert.deepEqual(table.resolve(second), { member: 'a_b', original: 'run' });
  });

  test('two tools of one member that become the same safe name: the first listed keeps it', () => {
    const table = new NameTable(DEFAULT_NAMING);
    assert.equal(expose(table, 'm', 'm', 'files.read'), 'm__files_read');
    const second = expose(table, 'm', 'm', 'files_read');
    assert.match(second, /^m__files_read_[a-z2-7]{8}$/);
    assert.deepEqual(table.resolve(second), { member: 'm', original: 'files_read' });
  });

  test('two members with the same long prefix get different shortened names for the same tool', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const prefix = 'p'.repeat(80);
    const one = expose(table, 'one', prefix, 'tool');
    const two = expose(table, 'two', prefix, 'tool');
    assert.notEqual(one, two);
    assert.deepEqual(table.resolve(one), { member: 'one', original: 'tool' });
    assert.deepEqual(table.resolve(two), { member: 'two', original: 'tool' });
  });

  test('a hashed name that is taken already moves on to the next hash, deterministically', () => {
    // Take the exact name the second member would get, then add that member.
    const probe = new NameTable(DEFAULT_NAMING);
    expose(probe, 'first', 'p', 'run');
    const wanted = expose(probe, 'second', 'p', 'run');

    const build = () => {
      const table = new NameTable(DEFAULT_NAMING);
      expose(table, 'first', 'p', 'run');
      assert.equal(expose(table, 'squatter', undefined, wanted), wanted);
      return { table, name: expose(table, 'second', 'p', 'run') };
    };
    const { table, name } = build();
    assert.notEqual(name, wanted);
    assert.match(name, /^p__run_[a-z2-7]{8}$/);
    assert.deepEqual(table.resolve(name), { member: 'second', original: 'run' });
    assert.equal(build().name, name);
  });

  test('adding the same (member, original) again returns the same name, even when it was shortened', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const long = 'z'.repeat(100);
    const a = expose(table, 'm', 'm', long);
    const b = expose(table, 'm', 'm', 'files.read');
    expose(table, 'n', 'm', 'files.read'); // takes nothing from m
    assert.equal(expose(table, 'm', 'm', long), a);
    assert.equal(expose(table, 'm', 'm', 'files.read'), b);
    assert.equal(expose(table, 'm', 'other-prefix', 'files.read'), b);
  });

  test('resolve and exposedOf answer undefined for what was never added', () => {
    const table = new NameTable(DEFAULT_NAMING);
    expose(table, 'm', 'm', 'x');
    assert.equal(table.resolve('x'), undefined);
    assert.equal(table.resolve('m__y'), undefined);
    assert.equal(table.exposedOf('m', 'y'), undefined);
    assert.equal(table.exposedOf('n', 'x'), undefined);
  });
});

describe('NameTable without a prefix', () => {
  test('leaves the name exactly as the server gives it, dots and length included', () => {
    const table = new NameTable(DEFAULT_NAMING);
    const long = `a.${'b'.repeat(100)}`;
    assert.equal(expose(table, 'only', undefined, 'files.read'), 'files.read');
    assert.equal(expose(table, 'only', undefined, long), long);
    assert.equal(expose(table, 'only', '', 'echo'), 'echo');
    assert.deepEqual(table.resolve('files.read'), { member: 'only', original: 'files.read' });
    assert.equal(table.exposedOf('only', long), long);
  });

  test('a name an earlier member holds is hidden, naming that member; the first keeps it', () => {
    const table = new NameTable(DEFAULT_NAMING);
    expose(table, 'first', undefined, 'echo');
    assert.deepEqual(table.add('second', undefined, 'echo'), { hiddenBy: 'first' });
    assert.deepEqual(table.add('second', undefined, 'echo'), { hiddenBy: 'first' });
    assert.equal(table.exposedOf('second', 'echo'), undefined);
    assert.deepEqual(table.resolve('echo'), { member: 'first', original: 'echo' });
    assert.equal(expose(table, 'second', undefined, 'other'), 'other');
  });

  test('a name equal to a prefixed member\'s generated one is hidden by it; the other way round, the prefixed one is hashed', () => {
    const a = new NameTable(DEFAULT_NAMING);
    expose(a, 'gh', 'gh', 'issues');
    assert.deepEqual(a.add('bare', undefined, 'gh__issues'), { hiddenBy: 'gh' });

    const b = new NameTable(DEFAULT_NAMING);
    expose(b, 'bare', undefined, 'gh__issues');
    const name = expose(b, 'gh', 'gh', 'issues');
    assert.match(name, /^gh__issues_[a-z2-7]{8}$/);
    assert.deepEqual(b.resolve(name), { member: 'gh', original: 'issues' });
  });

  test('the real servers side by side without prefixes: nothing collides, nothing is hidden', () => {
    const table = new NameTable(DEFAULT_NAMING);
    for (const [member, tools] of [['everything', EVERYTHING_TOOLS], ['filesystem', FILESYSTEM_TOOLS], ['memory', MEMORY_TOOLS]] as const) {
      for (const tool of tools) assert.equal(expose(table, member, undefined, tool), tool);
    }
  });
});
