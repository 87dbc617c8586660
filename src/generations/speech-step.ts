import { speaksFirst, type CatalogModel } from '../catalog/index.js';
import type { BlobStore } from '../files/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { ProviderError, type UpstreamRequest, type UpstreamStatus } from '../providers/types.js';
import { firstRouteThatTakes, type FallbackPorts } from './fallback.js';
import type { GenerationRow } from './views.js';
import { materializeOutputs, type OutputPorts } from './outputs.js';

/**
 * The speech step of an audio-driven avatar asked to say a text (issue 18):
 * its catalog `speech_model` speaks the text first, and the avatar model is
 * given that audio as `audio_url`. The speech is made once per generation and
 * kept as an input file, so a retry or a second runner reuses it; its price
 * is part of the avatar's reservation (billing/pricing.ts).
 */

/**
 * The speech is kept as a blob (no row), asked of the voice model's routes through fallback.ts, and downloaded like
 * any output; its deadline is `config.upstream`'s, which OutputPorts already names.
 */
export interface SpeechStepPorts extends FallbackPorts, OutputPorts {
  blobs: BlobStore;
  providers: ProviderRegistry;
}

const speechBlob = (generationId: string) => `inputs/${generationId}-speech`;

/** How often the speech step asks a provider that did not answer at once. */
const SPEECH_POLL_MS = 250;

/**
 * The avatar request with its speech as `audio_url`, a data URI (providers take one, and it needs no public URL of
 * mmgen): the uploaded audio (`audio_upload_id`, kept with the generation), or the text spoken by the speech step.
 */
export async function withAvatarAudio(
  deps: SpeechStepPorts,
  g: Pick<GenerationRow, 'id' | 'attempt' | 'mode' | 'result'>,
  req: UpstreamRequest,
): Promise<UpstreamRequest> {
  const uploaded = g.result?.input_audio_blob;
  let audio: { bytes: Buffer; contentType: string } | null = null;
  if (uploaded) {
    audio = await deps.blobs.get(uploaded);
    if (!audio) throw new ProviderError('the uploaded audio of this generation is missing from the file store', { kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway' });
  } else if (speaksFirst(req.model, req.params)) {
    audio = (await deps.blobs.get(speechBlob(g.id))) ?? (await speak(deps, g, req.model.speech, req.params));
  }
  if (!audio) return req;
  const { audio_upload_id: _kept, ...params } = req.params;
  return { ...req, params: { ...params, audio_url: `data:${audio.contentType};base64,${audio.bytes.toString('base64')}` } };
}

async function speak(
  deps: SpeechStepPorts,
  g: Pick<GenerationRow, 'id' | 'attempt' | 'mode'>,
  voice: CatalogModel,
  avatarParams: Record<string, unknown>,
): Promise<{ bytes: Buffer; contentType: string }> {
  const params: Record<string, unknown> = { text: avatarParams.text };
  if (avatarParams.voice_id !== undefined) params.voice_id = avatarParams.voice_id;
  const routes = deps.providers.routes(g.mode, voice, null, { params, sent: new Set(Object.keys(params)), image: false });
  if (routes.length === 0) {
    throw new ProviderError(`the speech step found no route of '${voice.slug}' configured here that takes this text and voice`, {
      kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway',
    });
  }
  const { status, req } = await firstRouteThatTakes(
    deps,
    g.id,
    routes,
    async (route) => {
      const req: UpstreamRequest = {
        // Its own reference: the speech is a job of its own upstream, never mistaken for the avatar's.
        clientRef: `${g.id}#${g.attempt}:speech`,
        attempt: g.attempt,
        modality: 'voice',
        model: voice,
        upstreamModel: route.upstreamModel,
        params,
      };
      const submitted = await route.adapter.submit(req);
      let status: UpstreamStatus | undefined = submitted.status;
      const deadline = Date.now() + deps.config.upstream.jobTimeoutMs;
      while (!status || !['succeeded', 'failed', 'canceled'].includes(status.state)) {
        if (Date.now() > deadline) throw new ProviderError(`the speech step took longer than ${Math.round(deps.config.upstream.jobTimeoutMs / 1000)} s`, { kind: 'timeout', retryable: true, accepted: true, origin: 'provider' });
        await new Promise((r) => setTimeout(r, SPEECH_POLL_MS));
        status = await route.adapter.poll(submitted.upstreamId, req);
      }
      return { status, req };
    },
    { logMessage: 'speech step: provider failed before accepting the work; trying the next route', trace: { modality: 'voice', model: voice.slug, attempt: g.attempt } },
  );
  if (status.state !== 'succeeded') {
    throw new ProviderError(`the speech step ${status.state}${status.error ? `: ${status.error.message}` : ''}`, { kind: 'job_failed', retryable: true, accepted: true, origin: 'provider' });
  }
  const audio = (await materializeOutputs(deps, req, status.outputs ?? [])).find((o) => o.type === 'audio');
  if (!audio) throw new ProviderError('the speech step returned no audio', { kind: 'malformed_response', retryable: true, accepted: true, origin: 'provider' });
  await deps.blobs.put(speechBlob(g.id), audio.bytes, audio.mime);
  return { bytes: audio.bytes, contentType: audio.mime };
}
