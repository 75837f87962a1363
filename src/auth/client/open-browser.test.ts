import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { LogFields, Logger } from '../../log/logger.js';
import { hasDesktop, openBrowser } from './open-browser.js';

/** A logger that records debug lines and resolves `next` at the next one. */
function recorder(): Logger & { lines: string[]; next: () => Promise<string> } {
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  const logger = {
    lines,
    next: () => new Promise<string>((resolve) => (waiting = resolve)),
    error: () => assert.fail('no error log'),
    warn: () => assert.fail('no warn log'),
    info: () => assert.fail('no info log'),
    debug: (message: string, fields?: LogFields) => {
      const line = `${message} ${JSON.stringify(fields ?? {})}`;
      lines.push(line);
      waiting?.(line);
    },
    child: () => logger,
  };
  return logger;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const LINUX_DESKTOP = { env: { DISPLAY: ':0' }, platform: 'linux' as const };

describe('hasDesktop', () => {
  test('macOS and Windows, a display, or WSL: yes; a bare Linux, SSH without a display, CI or MCP_CHAIN_NO_BROWSER: no', () => {
    assert.equal(hasDesktop({}, 'darwin'), true);
    assert.equal(hasDesktop({}, 'win32'), true);
    assert.equal(hasDesktop({}, 'linux'), false);
    assert.equal(hasDesktop({ DISPLAY: ':0' }, 'linux'), true);
    assert.equal(hasDesktop({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux'), true);
    assert.equal(hasDesktop({ WSL_DISTRO_NAME: 'Ubuntu' }, 'linux'), true);
    assert.equal(hasDesktop({ SSH_CONNECTION: '1 2 3 4' }, 'darwin'), false);
    assert.equal(hasDesktop({ SSH_CONNECTION: '1 2 3 4', DISPLAY: 'localhost:10' }, 'linux'), true, 'X forwarding');
    assert.equal(hasDesktop({ CI: 'true' }, 'darwin'), false);
    assert.equal(hasDesktop({ CI: 'false', DISPLAY: ':0' }, 'linux'), true);
    assert.equal(hasDesktop({ MCP_CHAIN_NO_BROWSER: '1' }, 'darwin'), false);
    assert.equal(hasDesktop({ MCP_CHAIN_NO_BROWSER: '0' }, 'darwin'), true);
  });
});

describe('openBrowser', () => {
  test('opens the URL when there is a desktop', async () => {
    const opened = deferred<string>();
    openBrowser('https://as.example/authorize?client_id=c', recorder(), { ...LINUX_DESKTOP, open: async (url) => opened.resolve(url) });
    assert.equal(await opened.promise, 'https://as.example/authorize?client_id=c');
  });

  test('does nothing without a desktop, or for a URL that is not http(s)', async () => {
    const log = recorder();
    const open = (): Promise<unknown> => assert.fail('not opened');
    openBrowser('https://as.example/authorize', log, { env: { CI: '1', DISPLAY: ':0' }, platform: 'linux', open });
    openBrowser('https://as.example/authorize', log, { env: {}, platform: 'linux', open });
    openBrowser('file:///etc/passwd', log, { ...LINUX_DESKTOP, open });
    openBrowser('not a url', log, { ...LINUX_DESKTOP, open });
    assert.deepEqual(log.lines, ['not opening a browser: the login URL is not http(s) {}', 'not opening a browser: the login URL is not http(s) {}']);
  });

  test('a failure to start is logged at debug and never thrown', async () => {
    const log = recorder();
    const line = log.next();
    openBrowser('https://as.example/authorize', log, { ...LINUX_DESKTOP, open: () => Promise.reject(new Error('no xdg-open')) });
    assert.match(await line, /could not open a browser for the login.*no xdg-open/);
  });

  test('an error of the started process (spawn ENOENT) is logged at debug, not left unhandled', async () => {
    const log = recorder();
    const child = new EventEmitter();
    const started = deferred<undefined>();
    openBrowser('https://as.example/authorize', log, {
      ...LINUX_DESKTOP,
      open: async () => {
        started.resolve(undefined);
        return child;
      },
    });
    await started.promise;
    await new Promise((resolve) => setImmediate(resolve)); // openBrowser's continuation after the start resolved
    assert.equal(child.listenerCount('error'), 1);
    const line = log.next();
    child.emit('error', new Error('spawn xdg-open ENOENT'));
    assert.match(await line, /spawn xdg-open ENOENT/);
  });

  test('the open package is there to be loaded lazily', async () => {
    const module = await import('open');
    assert.equal(typeof module.default, 'function');
  });
});
