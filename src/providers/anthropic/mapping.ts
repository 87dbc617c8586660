import type { UpstreamRequest } from '../types.js';

/**
 * mmgen's chat request (OpenAI's shape) as an Anthropic Messages request, as
 * LiteLLM and Portkey translate it:
 * - system messages become the top-level `system` (joined by blank lines);
 * - consecutive messages of one role are merged (Anthropic wants turns to
 *   alternate), and a conversation that does not open with a user turn gets
 *   a one-character user turn first (Anthropic requires one);
 * - `max_tokens` passes (Anthropic requires it; mmgen always has one);
 *   `temperature` is clamped to Anthropic's 0–1; `top_p` passes; `stop`
 *   becomes `stop_sequences`; `user` becomes `metadata.user_id`;
 * - `seed` and the penalties have no Anthropic equivalent and are not sent.
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

export function messagesRequest(req: UpstreamRequest, stream: boolean): Record<string, unknown> {
  const p = req.params;
  const body: Record<string, unknown> = {
    model: req.upstreamModel,
    max_tokens: p.max_tokens,
    ...toAnthropicMessages(p.messages as Msg[]),
  };
  if (typeof p.temperature === 'number') body.temperature = Math.min(1, p.temperature);
  if (typeof p.top_p === 'number') body.top_p = p.top_p;
  if (p.stop !== undefined && p.stop !== null) body.stop_sequences = Array.isArray(p.stop) ? p.stop : [p.stop];
  if (typeof p.user === 'string') body.metadata = { user_id: p.user };
  if (stream) body.stream = true;
  return body;
}
