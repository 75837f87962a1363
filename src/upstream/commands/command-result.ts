import type { CallToolResult, Tool } from '../../spec/index.js';
import type { CommandOutcome } from './run-command.js';

/** The `outputSchema` of every command tool: what its `structuredContent` holds. */
export const COMMAND_OUTPUT_SCHEMA: NonNullable<Tool['outputSchema']> & { additionalProperties: false } = {
  type: 'object',
  properties: {
    exitCode: { type: ['integer', 'null'], description: 'The exit code; null when killed by a signal, timed out or not started' },
    signal: { type: ['string', 'null'], description: 'The signal that ended it (SIGTERM, SIGKILL, ...), or null' },
    stdout: { type: 'string', description: 'Its standard output (UTF-8; cut at the size limit)' },
    stderr: { type: 'string', description: 'Its standard error (UTF-8; cut at the size limit)' },
    timedOut: { type: 'boolean', description: 'Killed at its time limit' },
    truncated: { type: 'boolean', description: 'stdout or stderr was longer than the size limit and was cut' },
  },
  required: ['exitCode', 'signal', 'stdout', 'stderr', 'timedOut', 'truncated'],
  additionalProperties: false,
};

/**
 * A run as a tool result: `content` with stdout, stderr (labelled, when not empty) and, for a
 * failure, a last line saying how it ended; `structuredContent` by {@link COMMAND_OUTPUT_SCHEMA};
 * `isError` on a non-zero exit, a signal, a timeout, a cancellation or a failure to start.
 */
export function commandResult(outcome: CommandOutcome, limits: { readonly timeoutMs: number; readonly maxOutputBytes: number }): CallToolResult {
  const stdout = outcome.stdout + (outcome.stdoutTruncated ? cutNote('stdout', outcome.stdoutBytes, limits.maxOutputBytes) : '');
  const stderr = outcome.stderr + (outcome.stderrTruncated ? cutNote('stderr', outcome.stderrBytes, limits.maxOutputBytes) : '');
  const failure = failureOf(outcome, limits.timeoutMs);
  const content: CallToolResult['content'] = [];
  if (stdout !== '' || (stderr === '' && failure === undefined)) content.push({ type: 'text', text: stdout });
  if (stderr !== '') content.push({ type: 'text', text: `stderr:\n${stderr}` });
  if (failure !== undefined) content.push({ type: 'text', text: `[${failure}]` });
  return {
    content,
    structuredContent: {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      stdout,
      stderr,
      timedOut: outcome.timedOut,
      truncated: outcome.stdoutTruncated || outcome.stderrTruncated,
    },
    ...(failure === undefined ? {} : { isError: true }),
  };
}

/** How a run failed, in words; undefined when it exited with 0. */
function failureOf(outcome: CommandOutcome, timeoutMs: number): string | undefined {
  if (outcome.spawnError !== undefined) return outcome.spawnError;
  if (outcome.timedOut) return `timed out after ${timeoutMs} ms: the process and its group were killed`;
  if (outcome.cancelled) return 'cancelled: the process and its group were killed';
  if (outcome.signal !== null) return `killed by ${outcome.signal}`;
  if (outcome.exitCode !== 0) return `exited with code ${String(outcome.exitCode)}`;
  return undefined;
}

function cutNote(stream: string, total: number, limit: number): string {
  return `\n[… ${stream} truncated: ${total.toLocaleString('en-US')} bytes, over the limit of ${limit.toLocaleString('en-US')}]`;
}
