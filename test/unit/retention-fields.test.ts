import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { MODALITY_RULES } from '../../src/generations/modalities.js';
import { REQUEST_TEXT_FIELDS } from '../../src/generations/retention.js';

/**
 * A generation's record expiry removes the request's free text from its params by name (REQUEST_TEXT_FIELDS). A new
 * free-text field in a modality's request that is not in the list would outlive the organization's retention: this
 * walks every request schema and names any such field.
 */
function freeTextFields(schema: TSchema): string[] {
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  return Object.entries(props).flatMap(([name, s]) => (carriesText(s) ? [name] : []));
}

/** A string that is neither an enum, nor short (an id, a language tag), or an array/object holding one. */
function carriesText(s: TSchema): boolean {
  const x = s as { type?: string; enum?: unknown[]; maxLength?: number; items?: TSchema; properties?: Record<string, TSchema>; anyOf?: TSchema[] };
  if (x.anyOf) return x.anyOf.some(carriesText);
  if (x.type === 'string') return !x.enum && (x.maxLength === undefined || x.maxLength > 100);
  if (x.type === 'array' && x.items) return carriesText(x.items);
  if (x.type === 'object' && x.properties) return Object.values(x.properties).some(carriesText);
  return false;
}

describe('retention of request text', () => {
  it('removes every free-text field of every modality request', () => {
    const missing: string[] = [];
    for (const [modality, rules] of Object.entries(MODALITY_RULES)) {
      for (const f of freeTextFields(rules.request.schema)) {
        if (f === 'model') continue; // a catalog slug, not the caller's text
        if (!(REQUEST_TEXT_FIELDS as readonly string[]).includes(f)) missing.push(`${modality}.${f}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('finds the text fields it knows, so the walk itself works', () => {
    expect(freeTextFields(MODALITY_RULES.chat.request.schema)).toContain('messages');
    expect(freeTextFields(MODALITY_RULES.image.request.schema)).toEqual(expect.arrayContaining(['prompt', 'negative_prompt', 'image_url']));
  });
});
