/**
 * JSON with every object's keys sorted (and members whose value is undefined left out), so one content always has
 * one text and one digest: the idempotency fingerprint of a body, the price version of a model's prices, a sent
 * input compared with a listed one. Written with a stack of its own rather than by recursion, so a value of any
 * depth (a provider's answer is not bounded by our body limits) costs memory in proportion, never the call stack.
 *
 * `leaf` may write a value itself (a Buffer as its digest); it returns undefined for values it leaves alone.
 */
export function canonicalJson(value: unknown, leaf?: (v: unknown) => string | undefined): string {
  let out = '';
  // Each entry is a value still to write or a piece of text (punctuation, a member's name) to append as it is.
  const todo: Array<{ v: unknown } | string> = [{ v: value }];
  while (todo.length > 0) {
    const item = todo.pop()!;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const v = item.v;
    const own = leaf?.(v);
    if (own !== undefined) {
      out += own;
    } else if (Array.isArray(v)) {
      todo.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push({ v: v[i] });
        if (i > 0) todo.push(',');
      }
      todo.push('[');
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
      todo.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push({ v: o[keys[i]!] });
        todo.push(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`);
      }
      todo.push('{');
    } else {
      // undefined (an array's hole), a function, a symbol: as JSON.stringify writes them inside an array.
      out += JSON.stringify(v) ?? 'null';
    }
  }
  return out;
}
