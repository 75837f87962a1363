/** A place in a config file: object keys and list indices, from the root. */
export type ConfigPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * A path as people read it: `mcpServers.github.env.GITHUB_TOKEN`, `middleware[0].filter`,
 * `mcpServers["my.server"].url` (keys that are not plain words are quoted).
 */
export function formatPath(path: ConfigPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
