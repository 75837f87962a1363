// Preloaded into every test process by scripts/run-tests.mjs (`--import`, after tsx): routes the
// test files' `import ... from 'node:test'` to ./node-test.mjs, which gives every test and hook a
// default timeout. Why not `--test-timeout`: on Node 20 (and 22 before 22.15) that flag bounds a
// whole test *file*, not each test (nodejs/node#57656, fixed by #57672), so one slow file would be
// cut off as a unit while a hung test in a long file could still take the whole budget. The
// runner keeps `--test-timeout` too, as the per-file backstop for what no test timeout covers (a
// file whose open handles keep it alive after its last test).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
