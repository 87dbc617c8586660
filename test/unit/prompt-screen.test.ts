import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DataSet, englishDataset } from 'obscenity';
import { matchBlocklist, matchProfanity, ModerationUnavailableError, normalizeForMatching, profanityPrefilterLive, screenPrompt } from '../../src/moderation/prompt-screen.js';
import type { Scores, TextClassifier } from '../../src/moderation/types.js';

/**
 * Prompt screening (contract §11, src/moderation/prompt-screen.ts): the organization's blocklist, obscenity's
 * profanity filter as configured there, and the hosted classifier's threshold. The hosted classifier against
 * OpenAI's API (the loopback fake) is in test/providers/hosted-moderation.test.ts; here a classifier is a plain
 * object that answers fixed scores or fails.
 */
const scoring = (scores: Scores): TextClassifier => ({ name: 'fixed', classify: async () => scores });
const screen = (text: string, blocklist: string[] = []) => screenPrompt(text, { blocklist, threshold: 0.8 });

describe('the organization blocklist', () => {
  it('matches whole words, whatever the case, width, spacing or invisible characters', () => {
    const list = ['Project Falcon', 'acme'];
    expect(matchBlocklist('a poster for project   falcon', list)).toBe('Project Falcon');
    expect(matchBlocklist('PROJECT\nFALCON launch', list)).toBe('Project Falcon');
    expect(matchBlocklist('the ＡＣＭＥ logo', list)).toBe('acme'); // full-width letters, NFKC
    expect(matchBlocklist('ac\u200bme rocket', list)).toBe('acme'); // zero-width space inside the word
    expect(matchBlocklist('Acme, Inc.', list)).toBe('acme');
    expect(matchBlocklist('acme-branded', list)).toBe('acme'); // a hyphen is a boundary
    // Not inside longer words, in any script.
    expect(matchBlocklist('an acmeology essay', list)).toBeUndefined();
    expect(matchBlocklist('Project Falconry', list)).toBeUndefined();
    expect(matchBlocklist('éacme', list)).toBeUndefined();
    expect(matchBlocklist('anything', ['', '   '])).toBeUndefined();
    // Entries with regex characters are literal.
    expect(matchBlocklist('I write c++ daily', ['c++'])).toBe('c++');
    expect(matchBlocklist('I write c daily', ['c++', 'a.b'])).toBeUndefined();
  });

  it('refuses naming the entry, not the prompt', async () => {
    const v = await screen('A long prompt about Project Falcon and other secret things', ['project falcon']);
    expect(v).toEqual({ refused: true, rule: 'blocklist', category: 'blocklist', reason: `the prompt contains "project falcon", which is on the organization's prompt blocklist` });
    expect(v.refused && v.reason).not.toContain('secret');
  });

  it('normalization', () => {
    expect(normalizeForMatching('  ＦＯＯ\t\tﬁle  ')).toBe('foo file');
  });
});

describe('the profanity filter (obscenity, English dataset)', () => {
  it('catches profanity and slurs with their variants: leetspeak, repeats, look-alike letters', () => {
    for (const [text, word] of [
      ['what the fuck', 'fuck'], ['fuuuuck this', 'fuck'], ['fvck', 'fuck'], ['sh1t happens', 'shit'], ['5h1t', 'shit'],
      ['a$$hole', 'ass'], ['b1tch', 'bitch'], ['ʃṳ𝒸𝗄', 'fuck'], ['motherfucker', 'fuck'], ['n1gger', 'nigger'],
      ['ＦＵＣＫ', 'fuck'], ['faggot', 'fag'], ['kike', 'kike'],
    ] as const) {
      expect(matchProfanity(text), text).toBe(word);
    }
  });

  it('lets the classic false positives through', () => {
    for (const text of [
      'Scunthorpe United', 'an assassin in the shadows', 'assassinate the king in a chess puzzle', 'a classic class photo', 'Essex and Sussex',
      'Middlesex', 'a cocktail at sunset', 'analysis of a canal', 'grapefruit and grape', 'a therapist office', 'a peacock', 'Hitchcock film',
      'a shuttlecock', 'cockatoo on a branch', 'cucumber salad', 'a titanic iceberg', 'document title', 'a raccoon', 'Penistone station',
      'bass guitar', 'a cumulative chart', 'cumin and coriander', 'magna cum laude', 'a blue tit and a great tit', 'blue-footed booby',
      'scat singing', 'a rugby hooker', 'Río Negro', 'the sex of a chick', 'anatomy of the human penis and vagina, medical illustration',
      // Whitelisted in prompt-screen.ts:
      'shiitake mushrooms', 'the cockpit of a plane', 'a pussycat', 'pussy willow branches', 'a niggardly sum', 'flame retardant',
      'a chink in the armour', 'Moby Dick', 'Emily Dickinson', 'rapeseed oil fields', 'a pin prick', 'the dog pricked up its ears',
    ]) {
      expect(matchProfanity(text), text).toBeUndefined();
    }
  });

  it('does not catch profanity spelled out across spaces or dots (the blocklist can)', () => {
    expect(matchProfanity('f u c k')).toBeUndefined();
    expect(matchProfanity('f.u.c.k')).toBeUndefined();
  });

  it('leaves ids, hashes and codes alone: leetspeak reads their digits as letters', async () => {
    // Each of these was refused before (a55 = "ass", 4b05 = "abos", abb0 = "abo", f46 = "fag").
    for (const text of ['job idem-a55294f217809951', 'ref 3db2f280-3b5b-4bb0-bff7-785a62effa3b', 'a 4b05 part', 'id abb0-65', 'x f46e9b14', 'a Samsung Galaxy A55 on a desk']) {
      expect(await screen(text), text).toEqual({ refused: false });
    }
    // …while leetspeak in a word still counts.
    expect(await screen('a sh1tty day')).toMatchObject({ refused: true });
    expect(await screen('5h1t')).toMatchObject({ refused: true });
  });

  it('refuses with the word masked and a category', async () => {
    expect(await screen('a sh1tty drawing')).toEqual({ refused: true, rule: 'profanity', category: 'profanity', reason: 'the prompt contains profanity ("s***"), which the profanity filter refuses' });
    expect(await screen('some n1gger thing')).toMatchObject({ refused: true, category: 'hate', reason: expect.stringContaining('a slur ("n*****")') });
    expect(await screen('a p0rn scene')).toMatchObject({ refused: true, category: 'sexual' });
  });
});

describe('the one-pass prefilter in front of the profanity filter', () => {
  // The dataset's words, read through its public API (a predicate that visits every phrase and removes none).
  const seen = new Set<string>();
  new DataSet<{ originalWord: string }>().addAll(englishDataset).removePhrasesIf((p) => (seen.add(p.metadata?.originalWord ?? ''), false));
  const words = [...seen].filter(Boolean);
  const LEET: Record<string, string> = { a: '4', e: '3', i: '1', o: '0', s: '$', t: '7', l: '1' };
  const variants = (w: string) => [
    w, w.toUpperCase(), `the ${w}s`, `un${w}ly`, [...w].map((c) => LEET[c] ?? c).join(''), w.replace(/(.)/, '$1$1$1'),
    [...w].map((c) => String.fromCodePoint(c.codePointAt(0)! - 0x61 + 0xff41)).join(''), `${w}-${w}`, `x${w}9`, `${w} willow`,
  ];

  it('is live with this version of obscenity', () => {
    expect(profanityPrefilterLive()).toBe(true);
  });

  it('never changes a verdict: every dataset word in variants, and random text, the same with and without it', () => {
    expect(words.length).toBeGreaterThan(50);
    let refused = 0;
    for (const w of words) {
      for (const text of variants(w)) {
        const full = matchProfanity(text, false);
        expect(matchProfanity(text), text).toBe(full);
        if (full !== undefined) refused++;
      }
    }
    // The corpus exercises both answers, so agreement is not agreement on "nothing".
    expect(refused).toBeGreaterThan(words.length);
    const piece = fc.oneof(fc.constantFrom(...words), fc.string({ maxLength: 6 }), fc.constantFrom(' ', '4', '$', '1', 'ʃ', '𝒸', 'ｕ', '\u200b'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(matchProfanity(text), text).toBe(matchProfanity(text, false));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('screenPrompt', () => {
  it('a clean prompt passes, with or without a hosted classifier under the threshold', async () => {
    expect(await screen('a watercolor of a lighthouse at dawn')).toEqual({ refused: false });
    expect(await screenPrompt('a lighthouse', { blocklist: [], threshold: 0.8, hosted: scoring({ violence: 0.79, sexual: 0.1 }) })).toEqual({ refused: false });
  });

  it('the hosted classifier refuses at or above the threshold, naming the highest category', async () => {
    const v = await screenPrompt('a lighthouse', { blocklist: [], threshold: 0.8, hosted: scoring({ violence: 0.8, harassment: 0.95, sexual: 0.2 }) });
    expect(v).toEqual({ refused: true, rule: 'hosted', category: 'harassment', reason: "the hosted classifier (fixed) scored the prompt 0.95 for harassment, at or above the organization's threshold 0.8" });
    expect(await screenPrompt('x', { blocklist: [], threshold: 0.8, hosted: scoring({ violence: 0.8 }) })).toMatchObject({ refused: true, category: 'violence' });
    // Threshold 1 refuses only certainty; 0 refuses anything scored.
    expect(await screenPrompt('x', { blocklist: [], threshold: 1, hosted: scoring({ violence: 0.999 }) })).toEqual({ refused: false });
    expect(await screenPrompt('x', { blocklist: [], threshold: 0, hosted: scoring({ violence: 0 }) })).toMatchObject({ refused: true });
  });

  it('local checks come first: a prompt they refuse is never sent to the hosted classifier', async () => {
    let calls = 0;
    const counting: TextClassifier = { name: 'counting', classify: async () => (calls++, {}) };
    expect(await screenPrompt('acme', { blocklist: ['acme'], threshold: 0.8, hosted: counting })).toMatchObject({ rule: 'blocklist' });
    expect(await screenPrompt('shit', { blocklist: [], threshold: 0.8, hosted: counting })).toMatchObject({ rule: 'profanity' });
    expect(calls).toBe(0);
    await screenPrompt('fine', { blocklist: [], threshold: 0.8, hosted: counting });
    expect(calls).toBe(1);
  });

  it('a failing hosted classifier fails closed: an error, neither a pass nor a refusal', async () => {
    const down: TextClassifier = { name: 'down', classify: async () => { throw new Error('HTTP 503: overloaded'); } };
    const err = await screenPrompt('a lighthouse', { blocklist: [], threshold: 0.8, hosted: down }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModerationUnavailableError);
    expect((err as Error).message).toMatch(/hosted classifier down failed \(HTTP 503: overloaded\)/);
    // The local checks still answer on their own.
    expect(await screenPrompt('acme', { blocklist: ['acme'], threshold: 0.8, hosted: down })).toMatchObject({ refused: true });
  });

  it('refuses a threshold outside 0–1', async () => {
    await expect(screenPrompt('x', { blocklist: [], threshold: 1.5 })).rejects.toThrow(RangeError);
    await expect(screenPrompt('x', { blocklist: [], threshold: Number.NaN })).rejects.toThrow(RangeError);
  });
});
