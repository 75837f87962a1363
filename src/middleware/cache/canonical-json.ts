/**
 * JSON text that is the same for equal values whatever the order of their keys (object keys
 * sorted, recursively), for cache keys. Iterative, so deeply nested arguments cannot overflow the
 * stack; values JSON cannot represent are written as `JSON.stringify` writes them.
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  type Step = { value: unknown } | { text: string };
  const stack: Step[] = [{ value }];
  while (stack.length > 0) {
    const step = stack.pop() as Step;
    if ('text' in step) {
      out += step.text;
      continue;
    }
    const current = step.value;
    if (Array.isArray(current)) {
      const steps: Step[] = [{ text: '[' }];
      current.forEach((item: unknown, i) => {
        if (i > 0) steps.push({ text: ',' });
        steps.push({ value: item === undefined || typeof item === 'function' ? null : item });
      });
      steps.push({ text: ']' });
      for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i] as Step);
    } else if (typeof current === 'object' && current !== null) {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
        .sort();
      const steps: Step[] = [{ text: '{' }];
      keys.forEach((key, i) => {
        steps.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: record[key] });
      });
      steps.push({ text: '}' });
      for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i] as Step);
    } else {
      out += JSON.stringify(current) ?? 'null';
    }
  }
  return out;
}
