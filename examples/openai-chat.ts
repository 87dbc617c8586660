/**
 * Chat through the official OpenAI SDK: mmgen speaks the chat-completions API.
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/openai-chat.ts
 */
import OpenAI from 'openai';

const openai = new OpenAI({
  apiKey: process.env.MMGEN_API_KEY,
  baseURL: `${(process.env.MMGEN_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '')}/v1`,
});
const model = process.env.MODEL ?? 'gpt-4o-mini';

const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Name three lighthouses.' }], max_tokens: 200 });
console.log(completion.choices[0]!.message.content);
console.log(`(${completion.id}: ${completion.usage?.completion_tokens} output tokens)`);

// Streaming, with the usage in the last chunk; charged per output token either way.
const stream = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'And one more?' }], stream: true, stream_options: { include_usage: true } });
let tokens = 0;
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta.content ?? '');
  if (chunk.usage) tokens = chunk.usage.completion_tokens;
}
console.log(`\n(streamed: ${tokens} output tokens)`);
