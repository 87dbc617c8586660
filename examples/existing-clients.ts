/**
 * The README's "Use it from your existing code" snippets, run as written: the OpenAI SDK (chat, responses, images, an
 * image edit, speech), the Vercel AI SDK, LangChain and the Anthropic SDK, each pointed at mmgen.
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/existing-clients.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { experimental_generateImage as generateImage, experimental_generateSpeech as generateSpeech, generateText } from 'ai';
import OpenAI, { toFile } from 'openai';

const base = (process.env.MMGEN_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const key = process.env.MMGEN_API_KEY;

// OpenAI
const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: key });
const chat = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
console.log(`openai chat ${chat.id}: ${chat.usage?.completion_tokens} output tokens`);
const reply = await openai.responses.create({ model: 'claude-haiku-4.5', input: 'Hi', instructions: 'Be brief.' });
console.log(`openai response ${reply.id}: ${reply.output_text.length} characters, ${reply.usage?.output_tokens} output tokens`);
const img = await openai.images.generate({ model: 'flux-dev', prompt: 'a red lighthouse', size: '1024x768' });
const png = Buffer.from(img.data![0]!.b64_json!, 'base64');
console.log(`openai image: ${png.length} bytes`);
const edit = await openai.images.edit({ model: 'flux-kontext-pro', image: await toFile(png, 'in.png', { type: 'image/png' }), prompt: 'at night' });
console.log(`openai edit: ${Buffer.from(edit.data![0]!.b64_json!, 'base64').length} bytes`);
const speech = await openai.audio.speech.create({ model: 'tts-1', input: 'Hello from mmgen', voice: 'alloy', response_format: 'wav' });
const wav = Buffer.from(await speech.arrayBuffer());
console.log(`openai speech ${speech.headers.get('x-mmgen-generation-id')}: ${wav.subarray(0, 4).toString('latin1')} ${wav.length} bytes`);

// Vercel AI SDK
const mmgen = createOpenAI({ baseURL: `${base}/v1`, apiKey: key });
const { text, usage } = await generateText({ model: mmgen('claude-haiku-4.5'), prompt: 'Write a haiku' });
console.log(`ai text: ${text.length} characters, ${usage.outputTokens} output tokens`);
const { image } = await generateImage({ model: mmgen.image('flux-schnell'), prompt: 'a green teapot', size: '1024x1024' });
console.log(`ai image: ${image.mediaType} ${image.uint8Array.length} bytes`);
const { audio } = await generateSpeech({ model: mmgen.speech('tts-1'), text: 'Hello', voice: 'alloy' });
console.log(`ai speech: ${audio.mediaType} ${audio.uint8Array.length} bytes`);

// LangChain
const llm = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: key, configuration: { baseURL: `${base}/v1` } });
const answer = await llm.invoke('Why is the sky blue?');
console.log(`langchain: ${String(answer.content).length} characters`);
let streamed = '';
for await (const chunk of await llm.stream('Count to five')) streamed += String(chunk.content);
console.log(`langchain stream: ${streamed.length} characters`);

// Anthropic
const anthropic = new Anthropic({ baseURL: base, apiKey: key });
const msg = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] });
console.log(`anthropic ${msg.id}: ${msg.usage.output_tokens} output tokens`);
const stream = anthropic.messages.stream({ model: 'gpt-4o-mini', max_tokens: 256, messages: [{ role: 'user', content: 'Tell me a story' }] });
let told = '';
stream.on('text', (t) => (told += t));
const final = await stream.finalMessage();
console.log(`anthropic stream ${final.id}: ${told.length} characters, ${final.usage.output_tokens} output tokens`);
