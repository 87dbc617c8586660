import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_TABLE } from '../errors.js';

/** Schemas shared by many routes. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      type: Type.String({ description: 'invalid_request_error, authentication_error, billing_error, permission_error, idempotency_error, rate_limit_error, upstream_error or api_error' }),
      code: Type.String({ enum: Object.keys(ERROR_TABLE) }),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      request_id: Type.Optional(Type.String()),
    }),
  },
  { title: 'Error' },
);

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
  });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' })),
  starting_after: Type.Optional(Type.String({ maxLength: 100, description: 'The id of the last object of the previous page.' })),
};

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const Deleted = (object: string) =>
  Type.Object({ id: Type.String(), object: Type.Literal(object), deleted: Type.Literal(true) });

export const Timestamp = Type.String({ format: 'date-time' });

/** A monthly budget (contract §7): dollars in whole cents, or null for none. */
export const Budget = Nullable(
  Type.Number({ minimum: 0, maximum: 1e9, multipleOf: 0.01, description: 'US dollars per calendar month (whole cents); null: no budget.' }),
);
export const BudgetAction = Type.String({
  enum: ['notify', 'block'],
  description: '`notify` (default): usage.budget_threshold events only. `block`: a request whose reservation would take the month\'s spend past the budget is refused with 402 budget_exceeded.',
});
export const SpentUsd = Type.Number({ description: 'Live credits charged this calendar month (UTC) plus those held now, in US dollars.' });
