import { DataSet, englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity';
import { MODERATION_CATEGORIES, type TextClassifier } from './types.js';

/**
 * Prompt screening (contract §11): before anything is reserved, a prompt is
 * checked by the organization's blocklist, a profanity and slur filter, and
 * (when the operator configured one) a hosted classifier. A refusal becomes
 * 400 `content_policy_violation` with `param: "prompt"`; its `reason` names the
 * rule that matched and never echoes the prompt back.
 *
 * Order: the two local checks first (no network, and a prompt they refuse is
 * never sent to a third party), then the hosted classifier.
 *
 * A failing hosted classifier fails closed: screenPrompt throws
 * ModerationUnavailableError (the route answers it as a server-side
 * unavailability, nothing reserved), it does not let the prompt through. The
 * operator turned the hosted classifier on as part of the policy; failing
 * open would switch that policy off exactly when the endpoint is down or rate
 * limited, and its rate limit is driven by mmgen's own traffic, i.e. by the
 * users whose prompts it screens: a burst of requests could turn moderation
 * off for the requests that follow. The client already retries a 429 once
 * and a 5xx once before giving up, so this costs availability only during a
 * real outage, which the operator can ride out by unsetting
 * MMGEN_MODERATION_OPENAI_KEY. It is not a refusal either: the prompt broke no
 * rule, and 400 content_policy_violation would tell the user so wrongly.
 */

export interface PromptScreenOptions {
  /** The organization's `prompt_blocklist`: words or phrases, matched case-insensitively on word boundaries. */
  blocklist: readonly string[];
  /** The hosted classifier, when the operator configured one. */
  hosted?: TextClassifier | undefined;
  /** The organization's threshold (0–1): a hosted score at or above it refuses the prompt. */
  threshold: number;
}

export type PromptRule = 'blocklist' | 'profanity' | 'hosted';

export type PromptVerdict =
  | { refused: false }
  | {
      refused: true;
      /** For the error message: which rule matched, without the prompt. */
      reason: string;
      /** A category of the vocabulary (types.ts) where one applies; `profanity` for a profane word that is not a slur or sexual. */
      category?: string;
      rule: PromptRule;
    };

/** The hosted classifier could not answer; the prompt is neither accepted nor refused (fail closed, see above). */
export class ModerationUnavailableError extends Error {
  constructor(classifier: string, cause: unknown) {
    super(`prompt moderation is unavailable: the hosted classifier ${classifier} failed (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = 'ModerationUnavailableError';
  }
}

/**
 * NFKC (full-width and styled letters, ligatures become plain ones), invisible format characters removed (a
 * zero-width space inside a word would otherwise split it), whitespace collapsed to one space, lower case.
 */
export function normalizeForMatching(text: string): string {
  return text.normalize('NFKC').replace(/\p{Cf}/gu, '').replace(/\s+/gu, ' ').trim().toLowerCase();
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The first blocklist entry the prompt contains as whole words: not inside a longer word ("ass" does not match
 * "class"), whatever the case, width or spacing. Entries are normalized like the prompt; an empty one is ignored.
 */
export function matchBlocklist(text: string, blocklist: readonly string[]): string | undefined {
  if (blocklist.length === 0) return undefined;
  const normalized = normalizeForMatching(text);
  for (const { entry, pattern } of blocklistPatterns(blocklist)) if (pattern.test(normalized)) return entry;
  return undefined;
}

/** A blocklist's expressions, made once per list (an organization's policy is cached, so its list is one array). */
const compiledBlocklists = new WeakMap<readonly string[], ReadonlyArray<{ entry: string; pattern: RegExp }>>();

function blocklistPatterns(blocklist: readonly string[]): ReadonlyArray<{ entry: string; pattern: RegExp }> {
  let compiled = compiledBlocklists.get(blocklist);
  if (!compiled) {
    compiled = blocklist.flatMap((entry) => {
      const needle = normalizeForMatching(entry);
      if (!needle) return [];
      // Letters, digits and _ of any script are word characters; whitespace inside an entry matches any run of it.
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])${needle.split(' ').map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}\\p{M}_])`, 'u');
      return [{ entry, pattern }];
    });
    compiledBlocklists.set(blocklist, compiled);
  }
  return compiled;
}

/*
 * The profanity filter: obscenity's English dataset with its recommended transformers (confusable Unicode
 * letters, leetspeak, repeated letters: "sh1t", "fuuuck", "ʃṳ𝒸𝗄" are caught), because it is maintained and its
 * patterns come with whitelists for the classic false positives ("Scunthorpe", "assassin", "class", "cocktail",
 * "Essex", "analysis" pass as they are). Measured against 0.4.6 (test/unit/prompt-screen.test.ts):
 *
 * - removed from the dataset: words whose ordinary or clinical meaning is common in prompts for images and
 *   speech (anatomy: sex, penis, vagina, anus, semen; birds: tit, booby; "cum laude", cumin; scat singing; a
 *   rugby hooker; Spanish and Portuguese "negro", as in Río Negro). Whether such a prompt is sexual depends on
 *   the rest of it, which the classifiers judge with the organization's threshold; a word list cannot.
 * - whitelisted phrases it otherwise flags (checked at the whitelist's own, lighter normalization): shiitake,
 *   cockpit, pussycat, pussy willow, niggardly, flame retardant, a chink in the armour, Moby Dick, Emily
 *   Dickinson, rapeseed, a pin prick, cuckold.
 * - not caught: profanity spelled out with spaces or dots ("f u c k"): the English preset has left out
 *   obscenity's skip-non-alphabetic transformer since 2024 (its issues #23 and #46), and adding it back
 *   matches across word gaps. A stricter list belongs in the organization's blocklist.
 */
const REMOVED_WORDS = new Set(['sex', 'penis', 'vagina', 'anus', 'semen', 'tit', 'boob', 'cum', 'scat', 'hooker', 'negro']);
const EXTRA_WHITELIST = [
  'shiitake', 'cockpit', 'pussycat', 'pussy cat', 'pussy willow', 'pussyfoot', 'niggardly', 'retardant', 'retardation',
  'chink in the armor', 'chink in the armour', 'chink of light', 'moby dick', 'dick van dyke', 'dickinson', 'rapeseed',
  'pin prick', 'pinprick', 'prick up', 'cuckold', 'spastic paralysis', 'bastard sword',
];
/** Slurs (hate) and sexual terms among the dataset's words; the rest is plain profanity. */
const HATE_WORDS = new Set(['abeed', 'abo', 'africoon', 'arabush', 'boonga', 'chingchong', 'chink', 'dyke', 'fag', 'kike', 'nigger', 'retard', 'spastic', 'tranny']);
const SEXUAL_WORDS = new Set([
  'anal', 'bestiality', 'blowjob', 'buttplug', 'cock', 'deepthroat', 'dildo', 'doggystyle', 'ejaculate', 'felch', 'fellatio', 'fisting',
  'gangbang', 'handjob', 'hentai', 'incest', 'jizz', 'lubejob', 'masturbate', 'orgasm', 'orgy', 'porn', 'pussy', 'rape', 'slut', 'whore',
]);

/**
 * What obscenity's RegExpMatcher keeps to itself (0.4.x): the compiled term expressions and its transformer pass.
 * getAllMatches runs every term's expression (about a hundred) over the transformed prompt, then sorts out the
 * whitelist; on the chat path that was most of the screen's cost, and almost every prompt matches nothing. One
 * expression, the union of the terms', answers "could any term match?" in a single pass over the same transformed
 * text, which is exactly getAllMatches's own input, so it never says no where a term would match. Read
 * defensively: if a version of the library no longer has these, every prompt takes the full path
 * (test/unit/prompt-screen.test.ts checks the fast path is live).
 */
interface MatcherInternals {
  blacklistedTerms?: ReadonlyArray<{ regExp?: unknown }>;
  blacklistMatcherTransformers?: unknown;
  applyTransformers?: (input: string, transformers: unknown) => [number[], string];
}

/** "Could any term match?" from the matcher's own terms and transformers, or undefined where they are not there. */
function anyTermPrefilter(matcher: RegExpMatcher): ((text: string) => boolean) | undefined {
  const inside = matcher as unknown as MatcherInternals;
  const terms = inside.blacklistedTerms;
  const transformers = inside.blacklistMatcherTransformers;
  const transform = inside.applyTransformers;
  if (!Array.isArray(terms) || terms.length === 0 || transformers === undefined || typeof transform !== 'function') return undefined;
  if (!terms.every((t) => t.regExp instanceof RegExp && t.regExp.flags === 'gs')) return undefined;
  const union = new RegExp(terms.map((t) => `(?:${(t.regExp as RegExp).source})`).join('|'), 's');
  return (text) => union.test(transform.call(matcher, text, transformers)[1]);
}

// Built on first use from the library's word list and mmgen's constants: the same for every installation of the
// process (an organization's own blocklist is compiled apart, by its list: compiledBlocklists).
let profanity: { matcher: RegExpMatcher; dataset: DataSet<{ originalWord: string }>; couldMatch: ((text: string) => boolean) | undefined } | undefined;

function profanityFilter() {
  if (!profanity) {
    // A copy: englishDataset is the library's shared instance, and removePhrasesIf changes the set it is called on.
    const dataset = new DataSet<{ originalWord: string }>()
      .addAll(englishDataset)
      .removePhrasesIf((p) => REMOVED_WORDS.has(p.metadata?.originalWord ?? ''));
    const built = dataset.build();
    const matcher = new RegExpMatcher({
      ...built,
      whitelistedTerms: [...(built.whitelistedTerms ?? []), ...EXTRA_WHITELIST],
      ...englishRecommendedTransformers,
    });
    profanity = { matcher, dataset, couldMatch: anyTermPrefilter(matcher) };
  }
  return profanity;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const DIGIT = /\p{N}/u;

/**
 * Whether a match stands for a word: leetspeak reads digits as letters, so inside a longer run of letters and
 * digits (a hash, an id, a product code: "a55294f2", "f46e9b") a few characters look like a word without being one.
 * A match in a token with digits counts only when the token is at least half letters ("sh1tty", "f4g"; not "4b05"
 * or "A55", a phone) and not hexadecimal ("abb0", a piece of a UUID); in letters alone ("fuckface") it counts.
 */
function isWordMatch(text: string, start: number, end: number): boolean {
  let from = start;
  let to = end + 1;
  while (from > 0 && WORD_CHAR.test(text[from - 1]!)) from--;
  while (to < text.length && WORD_CHAR.test(text[to]!)) to++;
  const token = text.slice(from, to);
  if (!DIGIT.test(token)) return true;
  const digits = [...token].filter((c) => DIGIT.test(c)).length;
  return token.length - digits >= digits && !/^[0-9a-f]+$/i.test(token);
}

/** Whether the one-pass prefilter is in use (false: the library changed, every prompt takes the full match). */
export const profanityPrefilterLive = (): boolean => profanityFilter().couldMatch !== undefined;

/** The dataset word a prompt contains (e.g. `fuck` for "fvck"), or undefined. */
export function matchProfanity(text: string, prefilter = true): string | undefined {
  const { matcher, dataset, couldMatch } = profanityFilter();
  const normalized = text.normalize('NFKC');
  if (prefilter && couldMatch && !couldMatch(normalized)) return undefined;
  const match = matcher.getAllMatches(normalized, true).find((m) => isWordMatch(normalized, m.startIndex, m.endIndex));
  if (!match) return undefined;
  return dataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord ?? 'a listed term';
}

/** A word named in an error without spelling it out: its first letter, then one * per other letter. */
const masked = (word: string) => `${word.slice(0, 1)}${'*'.repeat(Math.max(0, word.length - 1))}`;

export async function screenPrompt(text: string, opts: PromptScreenOptions): Promise<PromptVerdict> {
  if (!(opts.threshold >= 0 && opts.threshold <= 1)) throw new RangeError(`threshold must be from 0 to 1, got ${opts.threshold}`);

  const entry = matchBlocklist(text, opts.blocklist);
  if (entry !== undefined) {
    // The organization wrote the entry, so it is named as written.
    return { refused: true, rule: 'blocklist', category: 'blocklist', reason: `the prompt contains "${entry.trim()}", which is on the organization's prompt blocklist` };
  }

  const word = matchProfanity(text);
  if (word !== undefined) {
    const category = HATE_WORDS.has(word) ? 'hate' : SEXUAL_WORDS.has(word) ? 'sexual' : 'profanity';
    const kind = category === 'hate' ? 'a slur' : category === 'sexual' ? 'an explicit sexual term' : 'profanity';
    return { refused: true, rule: 'profanity', category, reason: `the prompt contains ${kind} ("${masked(word)}"), which the profanity filter refuses` };
  }

  if (opts.hosted) {
    let scores;
    try {
      scores = await opts.hosted.classify(text);
    } catch (err) {
      throw new ModerationUnavailableError(opts.hosted.name, err);
    }
    // The highest score at or above the threshold names the category (ties: the vocabulary's order).
    let worst: { category: string; score: number } | undefined;
    for (const category of MODERATION_CATEGORIES) {
      const score = scores[category];
      if (score !== undefined && score >= opts.threshold && (!worst || score > worst.score)) worst = { category, score };
    }
    if (worst) {
      return {
        refused: true,
        rule: 'hosted',
        category: worst.category,
        reason: `the hosted classifier (${opts.hosted.name}) scored the prompt ${worst.score.toFixed(2)} for ${worst.category}, at or above the organization's threshold ${opts.threshold}`,
      };
    }
  }
  return { refused: false };
}
