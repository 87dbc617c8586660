import { Type } from '@sinclair/typebox';
import { setDataPolicy, toDataPolicyView, type DataPolicyChange } from '../../request-log/data-policy.js';
import { MAX_PATTERN_LENGTH, MAX_RULES } from '../../request-log/redaction.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Nullable, Timestamp } from '../schemas.js';

const Capture = Type.String({
  enum: ['off', 'metadata', 'full'],
  description: '`off` (default): nothing beyond the request log. `metadata`: request headers (credentials never), status, sizes. `full`: the request and response bodies too, redacted, in the blob store.',
});
const Fields = Type.Array(Type.String({ maxLength: MAX_PATTERN_LENGTH }), {
  maxItems: MAX_RULES,
  description: 'Field paths whose values are never kept (`prompt`, `messages[*].content`).',
});
const Patterns = Type.Array(Type.String({ maxLength: MAX_PATTERN_LENGTH }), {
  maxItems: MAX_RULES,
  description: 'Regular expressions whose matches are never kept, in any text. API keys, bearer tokens and other credentials are always redacted.',
});
const LogDays = Type.Integer({ minimum: 1, maximum: 365, description: 'Days the request log keeps a row (default 30).' });
const GenerationDays = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: 3650,
    description:
      "Days a generation keeps its prompt and the request's text (and a chat its answer); then they are removed and the generation shows `prompt: null` and `prompt_expired_at`. null (default): kept forever. Usage and billing are never affected.",
  }),
);
const FileDays = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: 3650,
    description:
      "Days generations' output and input files and uploads are kept; then they are deleted from the blob store and their URLs answer 410 `file_expired`. null (default): kept forever.",
  }),
);
const Horizon = (what: string) =>
  Type.Object({
    oldest_kept_at: Nullable(Type.String({ format: 'date-time', description: `${what} before this are gone (null: kept forever).` })),
    written_today_expires_on: Nullable(Type.String({ format: 'date', description: `The day ${what.toLowerCase()} made now are removed (null: never).` })),
  });

export const DataPolicy = Type.Object(
  {
    object: Type.Literal('data_policy'),
    capture: Capture,
    redact_fields: Fields,
    redact_patterns: Patterns,
    request_log_days: LogDays,
    generation_days: GenerationDays,
    file_days: FileDays,
    updated_at: Nullable(Timestamp),
    expiry: Type.Object({
      request_log: Type.Object({
        oldest_kept_at: Type.String({ format: 'date-time', description: 'Rows before this are gone.' }),
        written_today_expires_on: Type.String({ format: 'date', description: 'The day a row written now is removed.' }),
      }),
      generation_records: Horizon("Generations' prompts"),
      files: Horizon('Files'),
    }),
  },
  { title: 'DataPolicy' },
);

export const getDataPolicy = defineRoute({
  method: 'GET',
  path: '/v1/organization/data-policy',
  operationId: 'getDataPolicy',
  summary: "The organization's data policy: payload capture, redaction and retention",
  description: 'What the organization keeps of its requests and for how long, with the dates what is kept now expires.',
  tag: 'Organization',
  auth: { role: 'viewer' },
  schema: { response: { 200: DataPolicy } },
  handler: async ({ principal, deps }) => ({
    status: 200,
    body: toDataPolicyView(await deps.dataPolicies.get(principal.organizationId), deps.clock.now()),
  }),
});

export const updateDataPolicy = defineRoute({
  method: 'PATCH',
  path: '/v1/organization/data-policy',
  operationId: 'updateDataPolicy',
  summary: "Change the organization's data policy (owner keys only)",
  description:
    'Fields left out keep their value; `generation_days` and `file_days` take null to keep forever. A shorter `request_log_days` also removes the rows already older than it; ' +
    'prompts and files past a new `generation_days` or `file_days` are removed at the next retention run (hourly). A change reaches every node within 5 seconds.',
  tag: 'Organization',
  auth: { role: 'owner', mode: 'live' },
  schema: {
    body: Type.Object(
      {
        capture: Type.Optional(Capture),
        redact_fields: Type.Optional(Fields),
        redact_patterns: Type.Optional(Patterns),
        request_log_days: Type.Optional(LogDays),
        generation_days: Type.Optional(GenerationDays),
        file_days: Type.Optional(FileDays),
      },
      { additionalProperties: false },
    ),
    response: { 200: DataPolicy },
  },
  handler: async ({ principal, body, deps, request }) => ({
    status: 200,
    body: toDataPolicyView(await setDataPolicy(deps, principal.organizationId, body as DataPolicyChange, requestOrigin(principal, request)), deps.clock.now()),
  }),
});
