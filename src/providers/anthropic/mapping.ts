import type { UpstreamRequest } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { documentedBody, recordForRequest, upstreamInput } from '../upstream-input.js';

/**
 * mmgen's chat request (OpenAI's shape) as an Anthropic Messages request, as
 * LiteLLM and Portkey translate it:
 * - system messages become the top-level `system` (joined by blank lines);
 * - consecutive messages of one role are merged (Anthropic wants turns to
 *   alternate), and a conversation that does not open with a user turn gets
 *   a one-character user turn first (Anthropic requires one);
 * - the other fields as each model's record maps them
 *   (src/providers/anthropic/models/): `max_tokens` passes (Anthropic
 *   requires it; mmgen always has one), within the model's own maximum;
 *   `temperature` is clamped to Anthropic's 0–1; `top_p` passes, except to
 *   the models that refuse it beside `temperature` (then temperature alone
 *   is sent: docs/contract-addenda.md, Providers); `top_k` (from
 *   /v1/messages) passes; `stop` becomes
 *   `stop_sequences` without the whitespace-only ones Anthropic refuses;
 *   `user` becomes `metadata.user_id`;
 * - `seed` and the penalties have no Anthropic equivalent: not mapped, so
 *   never sent.
 * The body is checked against the model's record before it is sent.
 */
interface Msg {
  role: string;
  content: string;
}

export function toAnthropicMessages(messages: Msg[]): { system?: string; messages: Array<{ role: 'user' | 'assistant'; content: string }> } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const turns: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content = `${last.content}\n\n${m.content}`;
    else turns.push({ role, content: m.content });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: '.' });
  return { ...(system.length ? { system: system.join('\n\n') } : {}), messages: turns };
}

export function messagesRequest(records: UpstreamRecords, req: UpstreamRequest, stream: boolean): Record<string, unknown> {
  const record = recordForRequest(records, req);
  // The map names `messages` (the model takes them); their translation into turns and `system` is the code above.
  const body: Record<string, unknown> = {
    model: req.upstreamModel,
    ...upstreamInput(record, req.params),
    ...toAnthropicMessages(req.params.messages as Msg[]),
  };
  if (stream) body.stream = true;
  return documentedBody('anthropic', record, body);
}
