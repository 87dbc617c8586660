import { describe, expect, it } from 'vitest';
import { parametersOf } from '../../src/generations/hold-to-model.js';
import type { PropertySchema } from '../../src/providers/upstream-record.js';
import { servedModels } from '../helpers/catalog.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

/**
 * A model's `capabilities` are claims its `parameters` must back (issue 18: "capabilities are display-only" was a
 * finding): a model listed as image-to-video takes an input image, one listed as seeded takes a seed, and so on.
 * Claims the API cannot express were dropped from the catalog with this test (negative prompts for video and music,
 * which those modalities do not take; ideogram's editing, eleven-music's lyrics and recraft's 4× upscale, which no
 * route of theirs takes).
 */
type Parameters = ReturnType<typeof parametersOf>;
const takes = (p: Parameters, field: string) => field in p.properties;
const allows = (p: Parameters, field: string, value: unknown) => {
  const s: PropertySchema | undefined = p.properties[field];
  if (!s) return false;
  if (s.enum) return s.enum.includes(value);
  return (typeof s.minimum !== 'number' || (value as number) >= s.minimum) && (typeof s.maximum !== 'number' || (value as number) <= s.maximum);
};
const textOnlyWorks = (p: Parameters) => p['x-mmgen-image'] !== 'required';

const BACKED: Record<string, (p: Parameters) => boolean> = {
  seed: (p) => takes(p, 'seed'),
  'negative-prompt': (p) => takes(p, 'negative_prompt'),
  'text-to-image': (p) => takes(p, 'prompt') && textOnlyWorks(p),
  'text-to-video': (p) => takes(p, 'prompt') && textOnlyWorks(p),
  'text-to-3d': (p) => takes(p, 'prompt') && textOnlyWorks(p),
  'text-to-music': (p) => takes(p, 'prompt'),
  'text-to-speech': (p) => takes(p, 'text'),
  'image-to-image': (p) => takes(p, 'upload_id'),
  'image-editing': (p) => takes(p, 'upload_id'),
  'image-to-video': (p) => takes(p, 'upload_id'),
  'image-to-3d': (p) => takes(p, 'upload_id'),
  'upscale-2x': (p) => !takes(p, 'scale') || allows(p, 'scale', 2),
  'upscale-4x': (p) => allows(p, 'scale', 4),
  // Not checked: codeformer and gfpgan restore faces always and have no switch for it; face_restore is a switch.
  'voice-selection': (p) => takes(p, 'voice_id'),
  lyrics: (p) => takes(p, 'lyrics'),
  'audio-driven': (p) => takes(p, 'audio_url'),
  'text-driven': (p) => takes(p, 'text'),
};

describe('capabilities are backed by parameters', () => {
  for (const model of servedModels()) {
    it(model.slug, () => {
      const p = parametersOf(SHIPPED_RECORDS, model);
      const unbacked = model.capabilities.filter((c) => BACKED[c] && !BACKED[c]!(p));
      expect(unbacked, `${model.slug} claims ${unbacked.join(', ')}; its parameters: ${Object.keys(p.properties).join(', ')}`).toEqual([]);
    });
  }
});
