/**
 * What the soak's member answers, derived from the request alone, so the load can check every
 * answer against its own request: the token of each call, the large text of a (token, size), and
 * the names of the tools.
 */
import { createHash } from 'node:crypto';

/** The tools the soak member offers (each member of the gateway offers all of them). */
export const SOAK_TOOLS = ['echo', 'progress', 'sample', 'large', 'slow'] as const;
export type SoakTool = (typeof SOAK_TOOLS)[number];

/** The sampling answer a load session gives to `token` (session index appended: a misrouted request shows). */
export function samplingAnswer(token: string, session: number): string {
  return `sampled:${token}:s${session}`;
}

/** The progress message number `step` of the call with `token`. */
export function progressMessage(token: string, step: number): string {
  return `${token}/${step}`;
}

const PAD = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `bytes` ASCII characters derived from `token`: 64-character lines `<token>:<line>:<pad>\n`,
 * the pad character changing with the line, the last line cut at `bytes`.
 */
export function largeText(token: string, bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let line = 0; length < bytes; line++) {
    const head = `${token}:${line.toString(36)}:`;
    const pad = PAD[line % PAD.length] as string;
    const text = head.length >= 63 ? `${head}\n` : `${head}${pad.repeat(63 - head.length)}\n`;
    parts.push(text);
    length += text.length;
  }
  return parts.join('').slice(0, bytes);
}

/** sha256 of a text (UTF-8), hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
