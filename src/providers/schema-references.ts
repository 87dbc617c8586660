import { JSON_LIMITS } from '../json-shape.js';

type Json = Record<string, unknown>;

/**
 * A schema published inside an OpenAPI document with its local references (`#/components/schemas/X`) replaced by
 * what they name, so that it stands on its own as a record's `input`. Replicate's versions (Cog) point each enum at
 * a component through a one-element `allOf`; fal's documents point an input at its components (ImageSize, …).
 * A reference that loops back on itself, or names nothing in the document, is left as a note: the record is
 * compiled alone (the strict fakes, the parameters), where such a reference would point nowhere. No npm package
 * fits this narrower job (the resolvers on npm fetch and bundle remote documents); it is one recursive walk, depth-bounded.
 */
export function inlineReferences(schema: unknown, document: unknown, seen: readonly string[] = [], depth = 0): unknown {
  // A published document is outside data: kept to the depth a record may have in an operator's request (a record
  // travels in one), and the walk's recursion with it. What lies deeper is left as a note, as a dangling reference is.
  if (depth >= JSON_LIMITS.depth) return { description: `published nested deeper than ${JSON_LIMITS.depth} levels: write its schema from the provider's documentation` };
  const next = depth + 1;
  if (Array.isArray(schema)) return schema.map((s) => inlineReferences(s, document, seen, next));
  if (!schema || typeof schema !== 'object') return schema;
  const o = schema as Json;
  if (typeof o.$ref === 'string') {
    const { $ref, ...rest } = o;
    const target = seen.includes($ref) ? undefined : pointer(document, $ref);
    if (target === undefined) return { ...inlineReferences(rest, document, seen, depth) as Json, description: `published as ${$ref}: write its schema from the provider's documentation` };
    return { ...(inlineReferences(target, document, [...seen, $ref], depth) as Json), ...(inlineReferences(rest, document, seen, depth) as Json) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) out[k] = inlineReferences(v, document, seen, next);
  // Cog's `{allOf: [{$ref}], default, description}`: one schema said twice; merged, it reads like a written record.
  if (Array.isArray(out.allOf) && out.allOf.length === 1 && out.allOf[0] && typeof out.allOf[0] === 'object') {
    const { allOf, ...rest } = out;
    return { ...(allOf as Json[])[0], ...rest };
  }
  return out;
}

/** What a local JSON pointer (`#/a/b`) names in the document; undefined for any other reference. */
function pointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!at || typeof at !== 'object' || !(key in (at as Json))) return undefined;
    at = (at as Json)[key];
  }
  return at;
}
