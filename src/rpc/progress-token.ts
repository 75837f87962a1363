import type { JsonObject } from '../message/jsonrpc.js';
import { isJsonObject } from '../message/parse-message.js';

export type ProgressToken = string | number;

/** The `_meta.progressToken` of request params, if it has a usable one. */
export function progressTokenOf(params: JsonObject | undefined): ProgressToken | undefined {
  const meta = params?._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** A copy of `params` whose `_meta.progressToken` is `token` (everything else kept). */
export function withProgressToken(params: JsonObject | undefined, token: ProgressToken): JsonObject {
  const meta = isJsonObject(params?._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, progressToken: token } };
}
