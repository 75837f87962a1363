import type { McpMessage, Result } from '../message/jsonrpc.js';
import type { RequestScope } from './request-scope.js';

/**
 * Where messages go on their way *down* (toward the client): server→client requests such as
 * `sampling/createMessage`, `elicitation/create`, `roots/list`, and server notifications.
 */
export interface Downstream {
  request(message: McpMessage, scope: RequestScope): Promise<Result>;
  notify(message: McpMessage): Promise<void>;
  /**
   * Flow control: the upstream cannot take more for now (its input is full), so stop reading from
   * the client until `resume()`. Calls nest: every `pause()` is matched by one `resume()`.
   */
  pause?(): void;
  resume?(): void;
}
