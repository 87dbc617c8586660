import { MediaInputError, seedKey, type Seed } from '../../../media/errors.js';
import { digest, Rng } from './hash.js';

/**
 * Token approximation used for every simulated chat count (input and output):
 *   - each CJK ideograph or kana is one token;
 *   - any other run of letters, marks and digits is one token per 12 characters;
 *   - every other non-space character (punctuation, symbols, emoji) is one token;
 *   - whitespace is free.
 * It is within a small factor of BPE tokenizers on ordinary prose, and, what
 * matters more here, it is exact and stable: the reply generator cuts text at
 * token boundaries of this same rule, so outputTokens always equals
 * countTokens(content).
 */
const TOKEN_RE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{M}\p{N}]){1,12}|[^\s\p{L}\p{M}\p{N}]/gu;

export function countTokens(text: string): number {
  let n = 0;
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.exec(text) !== null) n++;
  return n;
}

/** End offsets of each token. */
function tokenEnds(text: string): number[] {
  const ends: number[] = [];
  for (const m of text.matchAll(TOKEN_RE)) ends.push(m.index + m[0].length);
  return ends;
}

export type ChatContentPart = { type: 'text'; text: string } | { type: string; [key: string]: unknown };

export interface ChatMessage {
  role: string;
  content: string | ChatContentPart[] | null;
  name?: string;
}

/** Per-message framing cost (role markers), as in OpenAI's published accounting. */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens that prime the assistant's reply. */
export const TOKENS_REPLY_PRIMING = 2;
/** Flat price of a non-text part (an image at low detail in OpenAI's accounting). */
export const TOKENS_PER_NON_TEXT_PART = 85;

function messageText(m: ChatMessage): string {
  if (m.content === null) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('\n');
}

/** Prompt size under the rule above: Σ(TOKENS_PER_MESSAGE + text + name + 85 per non-text part) + TOKENS_REPLY_PRIMING. */
export function countInputTokens(messages: readonly ChatMessage[]): number {
  let n = TOKENS_REPLY_PRIMING;
  for (const m of messages) {
    n += TOKENS_PER_MESSAGE + countTokens(messageText(m));
    if (m.name) n += countTokens(m.name);
    if (Array.isArray(m.content)) n += m.content.filter((p) => p.type !== 'text').length * TOKENS_PER_NON_TEXT_PART;
  }
  return n;
}

const OPENERS = [
  'Here is a simulated answer about {T}.',
  'Good question about {T}.',
  'Sure, let me walk through {T} step by step.',
  'This is a deterministic reply from the mmgen simulator about {T}.',
  'Happy to help with {T}.',
  'Let us look at {T} from a practical angle.',
];

const BODY = [
  'The short version is that {T} depends on a few simple factors.',
  'In practice, most people start with a small example and build from there.',
  'It helps to write down the constraints before choosing an approach.',
  'A common mistake is to optimise too early, before measuring anything.',
  'When {T} is involved, clear naming makes the rest much easier to follow.',
  'There are trade-offs: speed, cost and quality rarely improve all at once.',
  'Start with the simplest version that works, then refine it.',
  'If something behaves unexpectedly, check the inputs first.',
  'The details matter less than a consistent, repeatable process.',
  'Many teams keep a short checklist for exactly this reason.',
  'For {T}, a quick experiment often answers more than a long debate.',
  'Keep an eye on edge cases, especially empty or very large inputs.',
  'Documentation pays for itself the first time someone new joins.',
  'Each step should be small enough to verify on its own.',
  'Note that this answer was generated without any real model behind it.',
  'A second opinion can catch problems that are easy to miss alone.',
  'Think about what happens when the same request arrives twice.',
  'Measuring before and after a change is the only honest comparison.',
  'Overall, {T} is manageable once it is broken into parts.',
  'Try it on real data as soon as you can.',
  'Simple tools, used well, go a long way.',
  'It is worth revisiting the plan after the first results come in.',
  'Small, frequent feedback beats one large review at the end.',
  'Finally, write down what you learned so the next attempt is faster.',
];

const STOPWORDS = new Set(
  'about above after again also because been before being between both could does doing down during each from further have having here into itself just more most once only other over same should some such than that their them then there these they this those through under until very what when where which while will with would your yours please tell explain write give make want need like know think work works really thing things something'.split(
    ' ',
  ),
);

const WORD_RE = /[\p{L}\p{M}][\p{L}\p{M}\p{N}]*/gu;

function topicOf(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user') ?? messages[messages.length - 1];
  const words: string[] = [];
  for (const m of (last ? messageText(last) : '').matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    if (Array.from(w).length >= 4 && !STOPWORDS.has(w) && !words.includes(w)) words.push(w);
  }
  if (words.length === 0) return 'your request';
  // The two longest words are usually the subject ("photosynthesis", "desert");
  // keep them in the user's order so the phrase still reads naturally.
  const chosen = new Set([...words].sort((a, b) => Array.from(b).length - Array.from(a).length).slice(0, 2));
  return words.filter((w) => chosen.has(w)).join(' and ');
}

export interface ChatReplyOptions {
  messages: readonly ChatMessage[];
  seed?: Seed;
  /** Upper bound on the reply (default 4096). */
  maxTokens?: number;
  /** Exact reply length wanted (still capped by maxTokens); otherwise a natural length is chosen. */
  outputTokens?: number;
}

export interface ChatReply {
  content: string;
  outputTokens: number;
  inputTokens: number;
  /** 'length' when maxTokens cut the reply short, as the upstream APIs report it. */
  finishReason: 'stop' | 'length';
}

export const CHAT_MAX_TOKENS = 131_072;

interface Plan {
  reply: ChatReply;
  /** Text of each token including the whitespace before it; joined they are the content. */
  pieces: string[];
}

function plan(opts: ChatReplyOptions): Plan {
  if (!Array.isArray(opts.messages)) throw new MediaInputError('messages must be an array');
  const maxTokens = opts.maxTokens ?? 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > CHAT_MAX_TOKENS) {
    throw new MediaInputError(`maxTokens must be an integer from 1 to ${CHAT_MAX_TOKENS}`);
  }
  const wanted = opts.outputTokens;
  if (wanted !== undefined && (!Number.isInteger(wanted) || wanted < 0)) {
    throw new MediaInputError('outputTokens must be a non-negative integer');
  }
  const inputTokens = countInputTokens(opts.messages);
  const rng = new Rng(digest('chat', JSON.stringify(opts.messages.map((m) => [m.role, messageText(m)])), seedKey(opts.seed)));
  const topic = topicOf(opts.messages);
  const naturalSentences = rng.int(2, 7);
  const target = wanted === undefined ? Infinity : Math.min(wanted, maxTokens);

  let text = '';
  let sentences = 0;
  let tokens = 0;
  let previous = -1;
  const limit = Math.min(target, maxTokens);
  while (wanted === undefined ? sentences < naturalSentences && tokens < maxTokens : tokens < limit) {
    let sentence: string;
    if (sentences === 0) sentence = rng.pick(OPENERS);
    else {
      let i = rng.int(0, BODY.length - 1);
      if (i === previous) i = (i + 1) % BODY.length;
      previous = i;
      sentence = BODY[i] ?? '';
    }
    sentence = sentence.replace('{T}', topic);
    // Paragraphs of three sentences read like a real assistant reply.
    const sep = sentences === 0 ? '' : sentences % 3 === 0 ? '\n\n' : ' ';
    text += sep + sentence;
    tokens += countTokens(sentence);
    sentences++;
  }

  const ends = tokenEnds(text);
  const natural = ends.length;
  const n = Math.min(wanted ?? natural, maxTokens, natural);
  let content = n === 0 ? '' : text.slice(0, ends[n - 1]);
  const truncated = (wanted ?? natural) > maxTokens;
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) pieces.push(text.slice(i === 0 ? 0 : ends[i - 1], ends[i]));
  // An exact-length reply that stops mid-sentence gets a full stop in place of
  // its last word, so it still reads as finished. A lone '.' is one token, so
  // the count is unchanged.
  if (!truncated && n >= 2 && /[\p{L}\p{N}]$/u.test(content) && /[\p{L}\p{N}]$/u.test(pieces[n - 2] ?? '')) {
    pieces[n - 1] = '.';
    content = pieces.join('');
  }
  return { reply: { content, outputTokens: n, inputTokens, finishReason: truncated ? 'length' : 'stop' }, pieces };
}

/**
 * A deterministic, plausible assistant reply. Same messages and seed → same
 * text. outputTokens in the result always equals countTokens(content); it is
 * exactly opts.outputTokens when given (capped by maxTokens, which then sets
 * finishReason 'length').
 */
export function chatReply(opts: ChatReplyOptions): ChatReply {
  return plan(opts).reply;
}

export type ChatStreamEvent = { type: 'delta'; text: string } | ({ type: 'done' } & ChatReply);

export interface ChatStreamOptions {
  /** Tokens per delta (default 3). */
  chunkTokens?: number;
  /** Pause between deltas, to imitate generation speed (default 0). */
  delayMs?: number;
  signal?: AbortSignal;
}

/**
 * The same reply as chatReply, as deltas whose concatenation is the content,
 * followed by one 'done' event carrying the usage.
 */
export async function* streamChatReply(opts: ChatReplyOptions, stream: ChatStreamOptions = {}): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const { reply, pieces } = plan(opts);
  const k = stream.chunkTokens ?? 3;
  if (!Number.isInteger(k) || k < 1) throw new MediaInputError('chunkTokens must be a positive integer');
  const delay = stream.delayMs ?? 0;
  for (let i = 0; i < pieces.length; i += k) {
    stream.signal?.throwIfAborted();
    if (delay > 0 && i > 0) await new Promise((r) => setTimeout(r, delay));
    yield { type: 'delta', text: pieces.slice(i, i + k).join('') };
  }
  stream.signal?.throwIfAborted();
  yield { type: 'done', ...reply };
}
