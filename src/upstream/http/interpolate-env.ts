import { ChainError } from '../../errors/chain-error.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces every `${NAME}` in `value` with the variable `NAME` of `env`. A variable that is not set
 * is a configuration error (ChainError 'CONFIG') naming `what` and the variable, never the value.
 * Anything else (`$NAME`, `$`, `{}`) is left as written.
 */
export function interpolateEnv(value: string, env: Readonly<Record<string, string | undefined>>, what: string): string {
  return value.replace(REFERENCE, (_reference, name: string) => {
    // Own string values only: `${constructor}` must not find Object.prototype's.
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (typeof found !== 'string') throw new ChainError('CONFIG', `${what} refers to \${${name}}, which is not set in the environment`);
    return found;
  });
}
