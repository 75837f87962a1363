// Module resolution hook (see ./register.mjs): every import of 'node:test' except the wrapper's own
// resolves to the wrapper.
const wrapper = new URL('./node-test.mjs', import.meta.url).href;

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: object) => Promise<object>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'node:test' && context.parentURL !== wrapper) return { url: wrapper, shortCircuit: true };
  return nextResolve(specifier, context);
}
