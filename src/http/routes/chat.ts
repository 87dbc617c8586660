import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';

export const ChatMessage = Type.Object(
  {
    role: Type.String({ enum: ['system', 'user', 'assistant'] }),
    content: Type.String({ maxLength: 200_000 }),
  },
  { additionalProperties: false },
);

export const createChat = modalityRoute({
  modality: 'chat',
  path: '/v1/chat',
  operationId: 'createChat',
  summary: 'Chat completion (synchronous, generation shape)',
  description: 'Reserves max_tokens output tokens and charges the tokens produced. POST /v1/chat/completions is the same in the OpenAI shape.',
  scope: 'chat:write',
  fields: {
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 500 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768, default: 1024 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  },
  prompt: (b) => {
    const msgs = b.messages as Array<{ role: string; content: string }>;
    return [...msgs].reverse().find((m) => m.role === 'user')?.content ?? null;
  },
});
