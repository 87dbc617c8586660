import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakes, type Fakes } from '../fakes/index.js';

/**
 * The fakes are strict (test/fakes/schemas.ts): each refuses what its
 * provider documents it refuses, in that provider's own error shape: an
 * unknown model, a field the model does not take, a value out of range, a
 * missing required field. A fake that accepted anything would prove nothing.
 */
describe('the provider fakes refuse what their providers refuse', () => {
  let fakes: Fakes;
  beforeAll(async () => {
    fakes = await startFakes();
  });
  afterAll(async () => fakes?.close());

  const post = async (url: string, headers: Record<string, string>, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('Replicate: 404 for an unknown model and for a community model by name, 422 problem+json naming each invalid input', async () => {
    const auth = { authorization: `Bearer ${fakes.replicate.key}` };
    const base = fakes.replicate.baseUrl;
    expect((await post(`${base}/models/nobody/nothing/predictions`, auth, { input: { prompt: 'x' } })).status).toBe(404);
    // nightmareai/real-esrgan is a community model: only POST /v1/predictions with its version runs it.
    expect((await post(`${base}/models/nightmareai/real-esrgan/predictions`, auth, { input: {} })).status).toBe(404);
    expect((await post(`${base}/predictions`, auth, { version: 'f'.repeat(64), input: {} })).status).toBe(422);
    const bad = await post(`${base}/models/black-forest-labs/flux-schnell/predictions`, auth, { input: { prompt: 'x', num_outputs: 9, colour: 'red' } });
    expect(bad.status).toBe(422);
    expect(bad.body.invalid_fields.map((f: { field: string }) => f.field).sort()).toEqual(['input.colour', 'input.num_outputs']);
    expect((await post(`${base}/models/black-forest-labs/flux-schnell/predictions`, auth, { input: { prompt: 'x', num_outputs: 4 } })).status).toBe(201);
  });

  it('fal: 404 for an unknown endpoint, 422 with a detail entry per fault', async () => {
    const auth = { authorization: `Key ${fakes.fal.key}` };
    expect((await post(`${fakes.fal.baseUrl}/fal-ai/no-such/endpoint`, auth, { prompt: 'x' })).status).toBe(404);
    const bad = await post(`${fakes.fal.baseUrl}/fal-ai/flux/schnell`, auth, { num_images: 99 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.num_images', 'body.prompt']);
    expect((await post(`${fakes.fal.baseUrl}/fal-ai/flux/schnell`, auth, { prompt: 'x', num_images: 2 })).status).toBe(200);
  });

  it('OpenAI: 404 model_not_found, 400 naming a parameter the model refuses', async () => {
    const auth = { authorization: `Bearer ${fakes.openai.key}` };
    const messages = [{ role: 'user', content: 'hi' }];
    const unknown = await post(`${fakes.openai.baseUrl}/chat/completions`, auth, { model: 'gpt-0', messages });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'model_not_found' } } });
    // gpt-5 takes no temperature other than 1.
    const refused = await post(`${fakes.openai.baseUrl}/chat/completions`, auth, { model: 'gpt-5', messages, temperature: 0.5 });
    expect(refused).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', param: 'temperature' } } });
    expect((await post(`${fakes.openai.baseUrl}/chat/completions`, auth, { model: 'gpt-5', messages })).status).toBe(200);
  });

  it('Anthropic: 404 not_found_error for a retired or unknown model, 400 invalid_request_error for a refused body', async () => {
    const auth = { 'x-api-key': fakes.anthropic.key, 'anthropic-version': '2023-06-01' };
    const messages = [{ role: 'user', content: 'hi' }];
    const unknown = await post(`${fakes.anthropic.baseUrl}/v1/messages`, auth, { model: 'claude-0', max_tokens: 10, messages });
    expect(unknown).toMatchObject({ status: 404, body: { type: 'error', error: { type: 'not_found_error' } } });
    // Haiku 4.5 takes temperature or top_p, not both.
    const both = await post(`${fakes.anthropic.baseUrl}/v1/messages`, auth, { model: 'claude-haiku-4-5-20251001', max_tokens: 10, messages, temperature: 0.5, top_p: 0.9 });
    expect(both).toMatchObject({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect((await post(`${fakes.anthropic.baseUrl}/v1/messages`, auth, { model: 'claude-haiku-4-5-20251001', max_tokens: 10, messages, temperature: 0.5 })).status).toBe(200);
  });

  it('ElevenLabs: 400 for an unknown model_id, 422 for a voice setting out of range', async () => {
    const auth = { 'xi-api-key': fakes.elevenlabs.key };
    const url = `${fakes.elevenlabs.baseUrl}/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM`;
    expect((await post(url, auth, { text: 'hi', model_id: 'eleven_none' })).status).toBe(400);
    const fast = await post(url, auth, { text: 'hi', model_id: 'eleven_multilingual_v2', voice_settings: { speed: 2 } });
    expect(fast.status).toBe(422);
    expect(fast.body.detail[0].loc).toEqual(['body', 'voice_settings', 'speed']);
  });
});
