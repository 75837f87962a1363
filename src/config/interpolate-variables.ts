import { homedir } from 'node:os';

/** Where `${...}` references are looked up. */
export interface Variables {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What `${workspaceFolder}` means when the environment does not set it (VS Code, Cursor). */
  readonly workspaceFolder: string;
}

/** A string with its references replaced, or why that failed (the names of variables, never their values). */
export type Interpolated = { readonly value: string; readonly errors?: undefined } | { readonly value?: undefined; readonly errors: readonly string[] };

const REFERENCE = /\$\{([^}]*)\}/g;
const VARIABLE = /^(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const OTHER_KIND = /^([A-Za-z]+):/;

/**
 * Replaces the references in `text`: `${NAME}` and `${env:NAME}` with the environment variable
 * `NAME`, `${NAME:-default}` (also `${env:NAME:-default}`) with `default` when `NAME` is unset or
 * empty. `${userHome}` and `${workspaceFolder}` (VS Code's and Cursor's) mean the home directory
 * and the folder the config file belongs to unless the environment sets them. A variable that is
 * not set, and `${input:...}` (VS Code prompts for those; we cannot), are errors naming the
 * reference; text that is no reference (`$NAME`, `${}`) is left as written.
 */
export function interpolate(text: string, variables: Variables): Interpolated {
  if (!text.includes('${')) return { value: text };
  const errors: string[] = [];
  const value = text.replace(REFERENCE, (reference, inner: string) => {
    const variable = VARIABLE.exec(inner);
    if (variable) {
      const name = variable[2] as string;
      const fallback = variable[3];
      // Own string values only: `${constructor}` or `${__proto__}` must not find Object.prototype's.
      const set = Object.hasOwn(variables.env, name) ? variables.env[name] : undefined;
      const found = (typeof set === 'string' ? set : undefined) ?? builtin(name, variables);
      if (fallback !== undefined && (found === undefined || found === '')) return fallback;
      if (found !== undefined) return found;
      errors.push(`uses ${reference}, which is not set`);
      return reference;
    }
    const kind = OTHER_KIND.exec(inner)?.[1];
    if (kind === 'input') errors.push(`uses ${reference}, a VS Code input, which mcp-chain cannot prompt for: use \${env:NAME} and set NAME instead`);
    else if (kind !== undefined) errors.push(`uses ${reference}: mcp-chain knows \${NAME}, \${NAME:-default} and \${env:NAME} only`);
    return reference;
  });
  return errors.length === 0 ? { value } : { errors };
}

function builtin(name: string, variables: Variables): string | undefined {
  if (name === 'userHome') return homedir();
  if (name === 'workspaceFolder') return variables.workspaceFolder;
  return undefined;
}
