import { Type, type TUnsafe } from '@sinclair/typebox';

/**
 * A string enum whose static type is the union of its values (`Type.String({ enum })` is typed `string`), written as
 * TypeBox documents it (`Type.Unsafe`). The keys keep the order `Type.String` gives them, so the JSON Schema, and
 * with it /v1/openapi.json, is the same.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ enum: [...values], ...options, type: 'string' });
}

export const Simulate = Type.Object(
  {
    outcome: Type.Optional(StringEnum(['success', 'failure', 'lost'])),
    delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    output_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: 32_768 })),
    moderation: Type.Optional(
      StringEnum(['approved', 'flagged', 'blocked'], { description: 'The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).' }),
    ),
  },
  { additionalProperties: false, description: 'Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only.' },
);

/** Fields every generation request accepts. */
export const commonFields = {
  model: Type.String({ minLength: 1, maxLength: 200, description: 'A model slug or mdl_ id from GET /v1/models.' }),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'Makes the result reproducible and cacheable.' })),
  cache: Type.Optional(Type.Boolean({ description: 'false: never answer from the cache.' })),
  simulate: Type.Optional(Simulate),
};

/** The input image of the modalities that take one. */
export const imageInputFields = {
  upload_id: Type.Optional(Type.String({ maxLength: 100, description: 'upl_… of a completed upload.' })),
  image_url: Type.Optional(Type.String({ maxLength: 4096, format: 'uri', description: 'An https URL mmgen fetches.' })),
};

export const Prompt = Type.String({ minLength: 1, maxLength: 4000 });

