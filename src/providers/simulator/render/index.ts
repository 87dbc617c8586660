/**
 * Synthetic media for the built-in simulator provider: real, valid files that
 * are deterministic in their inputs and cached, so test-mode traffic costs
 * almost nothing after the first request for a given input.
 *
 * Buffers returned by the render functions are shared with the cache: treat
 * them as read-only.
 */
export { renderImage, upscaleImage, IMAGE_MIN_SIDE, IMAGE_MAX_SIDE } from './image.js';
export type { ImageFormat, RenderedImage, RenderImageOptions, UpscaleOptions } from './image.js';

export { renderAudio, encodeWav, AUDIO_SAMPLE_RATE, AUDIO_MIN_MS, AUDIO_MAX_MS } from './audio.js';
export type { AudioFormat, RenderedAudio, RenderAudioOptions } from './audio.js';

export {
  renderVideo,
  VIDEO_DEFAULT_WIDTH,
  VIDEO_DEFAULT_HEIGHT,
  VIDEO_DEFAULT_FPS,
  VIDEO_MAX_FPS,
  VIDEO_MIN_SIDE,
  VIDEO_MAX_SIDE,
  VIDEO_MIN_MS,
  VIDEO_MAX_MS,
} from './video.js';
export type { RenderVideoOptions, RenderedVideo } from './video.js';

export { renderMesh, validateGlb, MESH_THUMBNAIL_SIZE } from './mesh.js';
export type { RenderMeshOptions, RenderedMesh, MeshShape, GlbValidation } from './mesh.js';

export {
  chatReply,
  streamChatReply,
  countTokens,
  countInputTokens,
  TOKENS_PER_MESSAGE,
  TOKENS_REPLY_PRIMING,
  TOKENS_PER_NON_TEXT_PART,
  CHAT_MAX_TOKENS,
} from './chat.js';
export type { ChatMessage, ChatContentPart, ChatReply, ChatReplyOptions, ChatStreamEvent, ChatStreamOptions } from './chat.js';

import { renderCache, type CacheLimits, type CacheStats } from './cache.js';
export type { CacheLimits, CacheStats };

/** Resize the shared render cache (evicts at once if it shrank). */
export function configureMediaCache(limits: Partial<CacheLimits>): void {
  renderCache.configure(limits);
}

export function mediaCacheStats(): CacheStats {
  return renderCache.stats();
}

/** Drops every cached render and resets the counters (tests, or memory pressure). */
export function clearMediaCache(): void {
  renderCache.clear();
}
