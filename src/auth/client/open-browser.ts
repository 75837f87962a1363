/**
 * @module
 * Opens the login URL in the person's browser, when there is a desktop to open it on. Best
 * effort: the URL is printed anyway by the caller, so a failure is logged at debug and never
 * thrown. The `open` package is loaded on first use only.
 */
import type { Logger } from '../../log/logger.js';

/** What `openBrowser` needs from its surroundings; tests replace them. */
export interface OpenBrowserOptions {
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Default `process.platform`. */
  platform?: NodeJS.Platform | undefined;
  /** Starts the browser (default: the `open` package). May resolve with the child process, whose `error` event is then logged. */
  open?: ((url: string) => Promise<unknown>) | undefined;
}

/**
 * Whether a browser can be opened for the person: not when `MCP_CHAIN_NO_BROWSER` is set (not
 * `0`/`false`), nor in CI (`CI`); on macOS and Windows yes unless over SSH; elsewhere when there
 * is a display (`DISPLAY`, `WAYLAND_DISPLAY`) or it is WSL (not over SSH).
 */
export function hasDesktop(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (truthy(env.MCP_CHAIN_NO_BROWSER) || truthy(env.CI)) return false;
  if (set(env.DISPLAY) || set(env.WAYLAND_DISPLAY)) return true;
  if (set(env.SSH_CONNECTION) || set(env.SSH_TTY)) return false;
  return platform === 'darwin' || platform === 'win32' || set(env.WSL_DISTRO_NAME);
}

/**
 * Opens `url` (http or https only) in the default browser when `hasDesktop`; does nothing
 * otherwise. Returns at once; a failure (no browser, `xdg-open` missing) is logged at debug.
 */
export function openBrowser(url: string, log: Logger, options: OpenBrowserOptions = {}): void {
  if (!hasDesktop(options.env ?? process.env, options.platform ?? process.platform)) return;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'https:' && protocol !== 'http:') {
    log.debug('not opening a browser: the login URL is not http(s)');
    return;
  }
  const failed = (error: unknown): void => log.debug('could not open a browser for the login', { error: error instanceof Error ? error.message : String(error) });
  const start = options.open ?? openWithPackage;
  void (async () => {
    try {
      const child = await start(url);
      if (isEmitter(child)) child.on('error', failed);
    } catch (error) {
      failed(error);
    }
  })();
}

async function openWithPackage(url: string): Promise<unknown> {
  const { default: open } = await import('open');
  return open(url, { wait: false });
}

interface ErrorEmitter {
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

function isEmitter(value: unknown): value is ErrorEmitter {
  return typeof value === 'object' && value !== null && typeof (value as { on?: unknown }).on === 'function';
}

function set(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}

function truthy(value: string | undefined): boolean {
  return set(value) && value !== '0' && value?.toLowerCase() !== 'false';
}
