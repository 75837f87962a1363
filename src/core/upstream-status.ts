/**
 * A change in the health of an {@link UpstreamConnection}, told to whoever listens with
 * `onStatus`. Events alternate, starting from up (a connection is up when it is opened, and that
 * is not announced): `down`, then `up`, then `down` again, never two of a kind in a row. Nothing is
 * told after `close()`.
 *
 * - `down` fires once when the connection loses its server while it was up: a stdio server exits
 *   or crashes (or cannot be started), an HTTP server cannot be reached or forgot the session (404),
 *   a legacy SSE stream breaks. Requests in flight fail; the connection stays usable and tries
 *   again on the next message (a stdio server is restarted then, after its backoff).
 * - `up` fires once the connection works again. `restarted: true`: it now talks to a new server
 *   instance or session, brought back to the session's state from `SessionReplay` (initialize,
 *   `notifications/initialized`, log level, subscriptions), so what it offers (tools, prompts,
 *   resources) may have changed and should be listed again. `restarted: false`: the same server
 *   session answered again (an HTTP server that was unreachable for a while and kept the session).
 *
 * `reason` is a few words for logs and messages (`exited (code 3)`, `is unreachable: connect
 * ECONNREFUSED 127.0.0.1:8080`), not meant to be parsed.
 */
export type UpstreamStatus =
  | { readonly state: 'down'; readonly reason: string }
  | { readonly state: 'up'; readonly restarted: boolean };

/** Called with each {@link UpstreamStatus} change; must not throw (a throw is logged and ignored). */
export type UpstreamStatusListener = (event: UpstreamStatus) => void;
