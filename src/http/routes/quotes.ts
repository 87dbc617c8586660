import { Type } from '@sinclair/typebox';
import { MODALITIES } from '../../catalog/index.js';
import { StringEnum } from '../../generations/modalities/fields.js';
import { quoteRequest } from '../../generations/quote.js';
import { defineRoute } from '../route.js';

export const Quote = Type.Object(
  {
    object: Type.Literal('quote'),
    modality: StringEnum(MODALITIES),
    model: Type.String({ description: "The model's slug." }),
    credits: Type.Integer({ minimum: 0, description: 'The credits this request would reserve if sent now with this key (0 with a test key).' }),
  },
  { title: 'Quote' },
);

// Validated by the use case against the modality's own request schema, as its endpoint validates it: a schema of
// every modality's fields here would answer a union's errors instead of the endpoint's.
const QuoteRequest = Type.Object(
  {
    modality: Type.Optional(StringEnum(MODALITIES, { description: "Default: the model's modality." })),
    model: Type.String({ minLength: 1, maxLength: 200, description: 'A model slug or mdl_ id from GET /v1/models.' }),
  },
  {
    additionalProperties: true,
    description: "The body of the modality's endpoint (the operation whose x-mmgen-modality names it), with `modality` beside it.",
  },
);

export const createQuote = defineRoute({
  method: 'POST',
  path: '/v1/quotes',
  operationId: 'createQuote',
  summary: 'The credits a generation request would reserve',
  description:
    "Takes the body of a modality's endpoint (POST /v1/images, …) and answers what that request would reserve now, priced as its acceptance prices it, " +
    'with the errors it would get (400, 403 for a key without the modality’s scope, 404, 410). Nothing is reserved or written; the prompt is not screened. ' +
    'A cache hit, which a request with a seed may get for free, is not foreseen.',
  tag: 'Generations',
  auth: { role: 'developer' },
  errors: [404, 410, 503],
  schema: { body: QuoteRequest, response: { 200: Quote } },
  handler: async ({ body, principal, deps }) => {
    const quote = await quoteRequest(deps, principal, body);
    return { status: 200, body: { object: 'quote' as const, ...quote } };
  },
});
