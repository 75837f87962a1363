/**
 * The reason in an OS error, without the path it repeats: `no such file or directory (ENOENT)`
 * for Node's "ENOENT: no such file or directory, open '/x/y.json'".
 */
export function describeOsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return error.message;
  const reason = error.message.replace(new RegExp(`^${code}: `), '').replace(/, \w+( '.*')?$/s, '');
  return `${reason} (${code})`;
}
