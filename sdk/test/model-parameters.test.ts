import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CreateParamsFor, ImageCreateParams, Mmgen, ModelParameters, VideoCreateParams } from '@mmgen/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { TEST_CATALOG_DATE } from '../../test/helpers/catalog.js';
import { DEFAULT_CATALOG_DATE, MODEL_PARAMETERS_PATH, renderModelParameterTypes, servedModelParameters } from '../scripts/model-parameters.js';

const SDK_DIR = join(process.cwd(), 'sdk');

describe('the SDK types each model by its parameters', () => {
  it(`${MODEL_PARAMETERS_PATH} is what this checkout's catalog gives (else: npm run generate -w @mmgen/sdk)`, () => {
    // The committed file is generated for the tests' catalog date, so that it and the served parameters agree in tests.
    expect(DEFAULT_CATALOG_DATE).toBe(TEST_CATALOG_DATE);
    const expected = renderModelParameterTypes(servedModelParameters(TEST_CATALOG_DATE), TEST_CATALOG_DATE);
    const checkedIn = readFileSync(join(SDK_DIR, MODEL_PARAMETERS_PATH), 'utf8');
    // One assertion on the whole text, so that a failure shows the diff.
    expect(checkedIn, 'the per-model types drifted from the catalog: run `npm run generate -w @mmgen/sdk`').toBe(expected);
  });

  it('has a type for every model served on that date, under its modality', () => {
    const source = readFileSync(join(SDK_DIR, MODEL_PARAMETERS_PATH), 'utf8');
    for (const m of servedModelParameters(TEST_CATALOG_DATE)) expect(source).toContain(`model: ${JSON.stringify(m.slug)};`);
  });
});

/**
 * Compile-time checks, proven by `npm run typecheck` (the root tsconfig compiles sdk/test): each `@ts-expect-error`
 * fails the typecheck if its line compiles. Never called: no request is sent.
 */
export function typeChecks(sdk: Mmgen): void {
  // A known model's enums are literal unions: kling-v2.1-master takes 5 or 10 seconds, 16:9, 9:16 or 1:1.
  void sdk.videos.create({ model: 'kling-v2.1-master', prompt: 'x', duration_s: 5 });
  // @ts-expect-error 7 is not among kling-v2.1-master's durations
  void sdk.videos.create({ model: 'kling-v2.1-master', prompt: 'x', duration_s: 7 });
  // @ts-expect-error 4:3 is not among its aspect ratios
  void sdk.videos.create({ model: 'kling-v2.1-master', prompt: 'x', aspect_ratio: '4:3' });
  // @ts-expect-error a field the model does not take (wan-2.2 takes no input image)
  void sdk.videos.create({ model: 'wan-2.2', prompt: 'x', image_url: 'https://example.com/a.png' });
  // @ts-expect-error a required field missing (voice: text)
  void sdk.voice.create({ model: 'tts-1' });
  // @ts-expect-error a voice tts-1 does not have
  void sdk.voice.create({ model: 'tts-1', text: 'hi', voice_id: 'JBFqnCBsd6RMkjVDRZzb' });
  void sdk.voice.create({ model: 'tts-1', text: 'hi', voice_id: 'nova' });
  void sdk.upscale.create({ model: 'real-esrgan', upload_id: 'upl_1', scale: 4 });
  // @ts-expect-error x-mmgen-image: "required": an upscale needs upload_id or image_url
  void sdk.upscale.create({ model: 'real-esrgan', scale: 2 });
  // @ts-expect-error 3 is not among its scales
  void sdk.upscale.create({ model: 'real-esrgan', upload_id: 'upl_1', scale: 3 });
  void sdk.avatars.create({ model: 'omnihuman', image_url: 'https://example.com/a.png', text: 'Hello.' });
  void sdk.avatars.create({ model: 'omnihuman', image_url: 'https://example.com/a.png', audio_url: 'https://example.com/a.mp3' });
  // @ts-expect-error oneOf text, audio_url, audio_upload_id: not two of them
  void sdk.avatars.create({ model: 'omnihuman', image_url: 'https://example.com/a.png', text: 'Hello.', audio_url: 'https://example.com/a.mp3' });
  void sdk.avatars.create({ model: 'omnihuman', image_url: 'https://example.com/a.png', audio_upload_id: 'upl_1' });
  // @ts-expect-error a voice is for the text spoken first, not for given audio
  void sdk.avatars.create({ model: 'omnihuman', image_url: 'https://example.com/a.png', audio_upload_id: 'upl_1', voice_id: 'JBFqnCBsd6RMkjVDRZzb' });
  // @ts-expect-error anyOf prompt, upload_id, image_url: rodin needs a prompt or an input image
  void sdk.threeD.create({ model: 'rodin' });
  void sdk.threeD.create({ model: 'rodin', upload_id: 'upl_1' });
  void sdk.threeD.create({ model: 'rodin', prompt: 'a chair' });
  // @ts-expect-error seedance-1-pro takes 2 to 12 seconds on every route
  void sdk.videos.create({ model: 'seedance-1-pro', prompt: 'x', duration_s: 1 });
  void sdk.chat.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
  // @ts-expect-error gpt-5 takes no temperature
  void sdk.chat.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 });

  // A model this SDK does not know (added server-side later, or an mdl_ id) gets the endpoint's generic fields.
  void sdk.videos.create({ model: 'some-future-video-model', prompt: 'x', duration_s: 7, aspect_ratio: '4:3' });
  // @ts-expect-error the generic fields still hold: aspect_ratio is one of the modality's
  void sdk.videos.create({ model: 'some-future-video-model', prompt: 'x', aspect_ratio: '5:4' });
  // A slug known only at run time (a string) gets them too, as do params built as the generic type.
  const slug: string = 'kling-v2.1-master';
  void sdk.videos.create({ model: slug, prompt: 'x', duration_s: 7 });
  const generic: VideoCreateParams = { model: 'kling-v2.1-master', prompt: 'x' };
  void sdk.videos.create(generic);

  expectTypeOf<CreateParamsFor<'video', 'kling-v2.1-master', VideoCreateParams>['duration_s']>().toEqualTypeOf<5 | 10 | undefined>();
  expectTypeOf<CreateParamsFor<'video', 'veo-3.1', VideoCreateParams>['aspect_ratio']>().toEqualTypeOf<'16:9' | '9:16' | undefined>();
  expectTypeOf<CreateParamsFor<'image', 'not-a-model', ImageCreateParams>>().toEqualTypeOf<ImageCreateParams>();
  expectTypeOf<CreateParamsFor<'image', string, ImageCreateParams>>().toEqualTypeOf<ImageCreateParams>();
  expectTypeOf<keyof ModelParameters>().toEqualTypeOf<'image' | 'video' | 'voice' | 'music' | 'avatar' | 'chat' | '3d' | 'upscale'>();
}
