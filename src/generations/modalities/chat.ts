import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, StringEnum } from './fields.js';

export const ChatMessage = Type.Object(
  {
    role: StringEnum(['system', 'user', 'assistant']),
    content: Type.String({ maxLength: 200_000 }),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatRequest = Type.Object(
  {
    ...commonFields,
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 500 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768, default: 1024 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  },
  { additionalProperties: false },
);
export type ChatRequest = Static<typeof ChatRequest>;

export const chat: ModalityDeclaration<typeof ChatRequest> = {
  request: {
    schema: ChatRequest,
    scope: 'chat:write',
    prompt: {
      field: 'messages',
      // The last user turn is what the generation shows as its prompt; every user turn is held to the policy.
      of: (b) => [...b.messages].reverse().find((m) => m.role === 'user')?.content ?? null,
      screened: (b) => b.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n'),
      place: (prompt) => [{ role: 'user', content: prompt }],
    },
  },
  sync: true,
  requestedUnits: (p) => new Decimal(p.max_tokens as number),
  // A provider that reports no usage is charged the reservation, never nothing.
  producedUnits: (w) => (w.outputTokens === undefined ? undefined : new Decimal(w.outputTokens)),
  outputs: {},
  replyInView: true,
  earlyDispatch: true,
};
