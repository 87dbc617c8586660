import { MODALITIES } from '../../catalog/index.js';
import { newId } from '../../ids.js';
import { probeAudioVideo, speechDurationS, MediaInputError } from '../../media/index.js';
import { chatReply, renderAudio, renderImage, renderMesh, renderVideo, streamChatReply, upscaleImage, type ChatMessage } from './render/index.js';
import type { SimulatedJob, SimulatorJobs } from './jobs.js';
import {
  ProviderError,
  type ChatStreamChunk,
  type ProviderAdapter,
  type UpstreamOutput,
  type UpstreamRequest,
  type UpstreamStatus,
} from '../types.js';

/**
 * The built-in simulator: an upstream provider that makes real, valid files
 * (deterministic for a seed) without any network. It serves test-mode keys
 * always, and live keys when MMGEN_SIMULATE_PROVIDERS=1. Its renders are
 * marked `synthetic` (abstract shapes and the prompt as a caption: moderation
 * does not let a classifier's guess block them; `simulate.moderation` does),
 * its upscales are not (they are the caller's image).
 *
 * A job with a delay (or a simulated failure or loss) is a row of its own
 * table, so it outlives an mmgen crash the way a real provider's job does and
 * can be polled, canceled and found again. An image, voice or chat job with
 * no delay that succeeds is answered at once, like the synchronous upstream
 * APIs of those modalities, and leaves no row.
 * `simulate` on a request steers the FIRST
 * submission of a generation: `failure` fails upstream; `lost` succeeds
 * upstream but the answer to the submission is lost (mmgen fails the
 * generation, and a retry must find the job by its client reference).
 */
const MAX_DELAY_MS = 600_000;
/** Jobs longer than this report progress (contract §5: delays over one second). */
const PROGRESS_MIN_DELAY_MS = 1000;
/** Modalities whose real upstream APIs are request/response (OpenAI images, speech, chat); the others are job APIs. */
const ANSWERS_AT_ONCE = new Set(['image', 'voice', 'chat']);

export class SimulatorProvider implements ProviderAdapter {
  readonly name = 'simulator';
  readonly modalities = MODALITIES;

  constructor(
    private readonly jobs: SimulatorJobs,
    private readonly now: () => number = Date.now,
  ) {}

  private steering(req: UpstreamRequest) {
    // Only the first submission obeys `simulate`; a resubmission on retry succeeds.
    if (req.attempt > 1) return { outcome: 'success' as const, delayMs: 0 };
    return {
      outcome: req.simulate?.outcome ?? 'success',
      delayMs: Math.min(Math.max(req.simulate?.delay_ms ?? 0, 0), MAX_DELAY_MS),
    };
  }

  async submit(req: UpstreamRequest): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    const { outcome, delayMs } = this.steering(req);
    const id = `sim_${newId('req').slice(4)}`;
    if (outcome === 'success' && delayMs === 0 && ANSWERS_AT_ONCE.has(req.modality)) return { upstreamId: id, status: await this.render(req) };
    const finishedAtOnce = delayMs === 0 && outcome !== 'lost';
    const upstreamId = await this.jobs.submit({ id, clientRef: req.clientRef, modality: req.modality, upstreamModel: req.upstreamModel, outcome, readyAt: new Date(this.now() + delayMs) });
    if (outcome === 'lost') {
      throw new ProviderError('The simulated provider accepted the job but its answer was lost.', { kind: 'timeout', retryable: false, accepted: true, origin: 'gateway' });
    }
    // A job with no delay is done by the time it is accepted; its row stays for reconciliation.
    if (finishedAtOnce) return { upstreamId, status: await this.poll(upstreamId, req) };
    return { upstreamId };
  }

  async findByClientRef(clientRef: string): Promise<string | null> {
    return this.jobs.findByClientRef(clientRef);
  }

  async cancel(upstreamId: string): Promise<void> {
    await this.jobs.cancel(upstreamId);
  }

  /**
   * A job that takes over a second reports its progress as providers do
   * (contract §5): queued for its first tenth, then running, by tens of
   * percent of its delay.
   */
  private progressOf(job: SimulatedJob): Pick<UpstreamStatus, 'progress'> {
    const total = job.readyAt.getTime() - job.createdAt.getTime();
    if (total <= PROGRESS_MIN_DELAY_MS) return {};
    const done = Math.min(Math.max((this.now() - job.createdAt.getTime()) / total, 0), 0.99);
    if (done < 0.1) return { progress: { stage: 'queued', queue_position: 0 } };
    return { progress: { stage: 'running', percent: Math.floor(((done - 0.1) / 0.9) * 10) * 10 } };
  }

  async poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus> {
    const job = await this.jobs.get(upstreamId);
    if (!job) throw new ProviderError(`No such simulated job: ${upstreamId}`, { kind: 'not_found', retryable: false, accepted: false, origin: 'provider', status: 404 });
    if (job.canceledAt) return { state: 'canceled' };
    if (job.readyAt.getTime() > this.now()) return { state: 'running', ...this.progressOf(job) };
    if (job.outcome === 'failure') return { state: 'failed', error: { message: 'The simulated provider failed the job (simulate.outcome = "failure").' } };
    return this.render(req);
  }

  async *streamChat(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk> {
    const { outcome, delayMs } = this.steering(req);
    if (outcome !== 'success') throw new ProviderError('The simulated provider failed the stream.', { kind: 'job_failed', retryable: false, accepted: true, origin: 'provider' });
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    for await (const ev of streamChatReply(this.chatOptions(req), { signal })) {
      if (ev.type === 'delta') yield { type: 'delta', text: ev.text };
      else yield { type: 'done', message: { role: 'assistant', content: ev.content }, usage: { input_tokens: ev.inputTokens, output_tokens: ev.outputTokens }, finish_reason: ev.finishReason };
    }
  }

  private chatOptions(req: UpstreamRequest) {
    const p = req.params;
    return {
      messages: p.messages as ChatMessage[],
      seed: (p.seed as number | undefined) ?? req.clientRef.split('#')[0],
      maxTokens: p.max_tokens as number,
      ...(req.attempt === 1 && req.simulate?.output_tokens !== undefined ? { outputTokens: req.simulate.output_tokens } : {}),
    };
  }

  /**
   * A talking head with a real soundtrack: the speech it was given (an `audio_url` data URI: the speech step's, or
   * a caller's), as long as that speech; else the text (or prompt) spoken as voice babble. A caller's audio at an
   * http(s) URL is not fetched by the simulator: it speaks babble of the text's length instead.
   */
  private async renderAvatar(p: Record<string, unknown>, prompt: string, seed: string | number) {
    const said = (p.text as string | undefined) ?? (prompt || 'avatar');
    const given = typeof p.audio_url === 'string' ? /^data:audio\/[\w.+-]+;base64,(.+)$/s.exec(p.audio_url) : null;
    if (given) {
      const soundtrack = Buffer.from(given[1]!, 'base64');
      const length = (await probeAudioVideo(soundtrack)).durationS;
      if (!length) throw new MediaInputError('audio_url holds no audio the simulator can read');
      return renderVideo({ prompt: said, seed, durationS: Math.min(60, Math.max(0.5, Math.round(length * 1000) / 1000)), soundtrack });
    }
    return renderVideo({ prompt: said, seed, durationS: speechDurationS(said), speech: said });
  }

  /** A render that cannot be made (bad input) is a permanent upstream failure, not something to poll again. */
  private async render(req: UpstreamRequest): Promise<UpstreamStatus> {
    try {
      return await this.renderUnchecked(req);
    } catch (err) {
      if (err instanceof MediaInputError) throw new ProviderError(`The simulated provider refused the input: ${err.message}`, { kind: 'bad_request', retryable: false, accepted: true, origin: 'provider' });
      throw err;
    }
  }

  private async renderUnchecked(req: UpstreamRequest): Promise<UpstreamStatus> {
    const p = req.params;
    // Without an explicit seed, the generation id seeds the render: stable for one generation, varied across them.
    const seed = (p.seed as number | undefined) ?? req.clientRef.split('#')[0]!;
    const prompt = (p.prompt as string | undefined) ?? '';
    switch (req.modality) {
      case 'image': {
        const n = p.num_outputs as number;
        const outputs: UpstreamOutput[] = [];
        for (let i = 0; i < n; i++) {
          const img = await renderImage({ prompt, seed: `${seed}:${i}`, width: p.width as number, height: p.height as number, format: 'png' });
          outputs.push({ bytes: img.bytes, mime: img.mime, width: img.width, height: img.height, synthetic: true });
        }
        return { state: 'succeeded', outputs };
      }
      case 'voice': {
        const text = p.text as string;
        const audio = await renderAudio({ text, seed, durationS: speechDurationS(text) });
        return { state: 'succeeded', outputs: [{ bytes: audio.bytes, mime: audio.mime, duration_s: audio.durationS, synthetic: true }] };
      }
      case 'music': {
        const audio = await renderAudio({ prompt, seed, durationS: p.duration_s as number });
        return { state: 'succeeded', outputs: [{ bytes: audio.bytes, mime: audio.mime, duration_s: audio.durationS, synthetic: true }] };
      }
      case 'video':
      case 'avatar': {
        const v = req.modality === 'video' ? await renderVideo({ prompt, seed, durationS: p.duration_s as number }) : await this.renderAvatar(p, prompt, seed);
        return {
          state: 'succeeded',
          outputs: [
            { bytes: v.video.bytes, mime: v.video.mime, width: v.video.width, height: v.video.height, duration_s: v.video.durationS, synthetic: true },
            { bytes: v.thumbnail.bytes, mime: v.thumbnail.mime, type: 'thumbnail', width: v.thumbnail.width, height: v.thumbnail.height, synthetic: true },
          ],
        };
      }
      case '3d': {
        const m = await renderMesh({ prompt: prompt || 'image-to-3d', seed });
        return {
          state: 'succeeded',
          outputs: [
            { bytes: m.mesh.bytes, mime: m.mesh.mime, type: 'mesh', synthetic: true },
            { bytes: m.thumbnail.bytes, mime: m.thumbnail.mime, type: 'thumbnail', width: m.thumbnail.width, height: m.thumbnail.height, synthetic: true },
          ],
        };
      }
      case 'upscale': {
        if (!req.image) throw new ProviderError('upscale needs an input image', { kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway' });
        const img = await upscaleImage({ input: req.image.bytes, scale: p.scale as 2 | 4, faceRestore: p.face_restore as boolean });
        // Not synthetic: these are the caller's own pixels, enlarged, and the classifiers judge them as they would a provider's.
        return { state: 'succeeded', outputs: [{ bytes: img.bytes, mime: img.mime, width: img.width, height: img.height }] };
      }
      case 'chat': {
        const reply = chatReply(this.chatOptions(req));
        return {
          state: 'succeeded',
          message: { role: 'assistant', content: reply.content },
          usage: { input_tokens: reply.inputTokens, output_tokens: reply.outputTokens },
          finish_reason: reply.finishReason,
        };
      }
    }
  }
}
