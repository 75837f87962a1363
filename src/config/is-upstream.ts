import type { Upstream } from '../core/upstream.js';

/** Whether `value` is an Upstream (anything with `connect`): `local({...})`, a chain, `stdio({...})`. */
export function isUpstream(value: unknown): value is Upstream {
  return typeof value === 'object' && value !== null && typeof (value as { connect?: unknown }).connect === 'function';
}
