/**
 * A remote server needs a person to log in before it answers `principal`. A login was started:
 * `url` is where the person goes (the authorization request; it holds no secret), and the redirect
 * listener waits for them. `command` is the CLI way (`mcp-chain auth login <server>`).
 */
export class LoginRequiredError extends Error {
  override name = 'LoginRequiredError';
  /** The server's name (config key, or the URL's host). */
  readonly server: string;
  /** The authorization URL, when a login was started in this process. */
  readonly url: string | undefined;
  /** The command that logs in from a terminal. */
  readonly command: string;
  /** Settles when the login started here completed (tokens stored) or failed; undefined when none was started. */
  readonly completion: Promise<void> | undefined;

  constructor(server: string, options: { url?: string | undefined; command: string; completion?: Promise<void> | undefined; reason?: string | undefined }) {
    const how = options.url === undefined ? `run \`${options.command}\`` : `open ${options.url} (or run \`${options.command}\`)`;
    super(`${server} needs a login${options.reason === undefined ? '' : ` (${options.reason})`}: ${how}`);
    this.server = server;
    this.url = options.url;
    this.command = options.command;
    this.completion = options.completion;
  }
}
