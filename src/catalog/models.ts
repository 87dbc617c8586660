/**
 * The model catalog, as data.
 *
 * Prices are public list prices (US dollars) of the primary route's provider as
 * of late 2025 / early 2026, rounded to what a user would recognise from the
 * provider's pricing page. Where a provider bills per run or per compute-second
 * rather than per unit, the price is converted to the unit below for a typical
 * request and marked "≈". One `unit_cost_usd` buys (contract §4):
 *
 * - image:   one generated image (default size, ~1 MP / 1024×1024, standard quality)
 * - video:   one second of generated video (default resolution of the route)
 * - music:   one second of generated audio
 * - avatar:  one second of generated video
 * - voice:   1,000 characters of input text
 * - chat:    ONE output token (e.g. $10 per million output tokens = "0.00001")
 * - 3d:      one generated mesh
 * - upscale: one output (upscaled) image
 *
 * `routes[0]` is the primary route and gives the public provider; later routes
 * are fallbacks on another provider that serves the same model. Upstream names
 * are what that provider's API expects: plain model ids for OpenAI, Anthropic
 * and ElevenLabs, "owner/name" for Replicate's models API
 * (`POST /v1/models/{owner}/{name}/predictions`), endpoint ids for fal.
 *
 * `delisted` models were real and have since been retired or deprecated
 * upstream; they stay in the catalog so that requests get 410, not 404. A
 * model delisted because every upstream it was routed to shut down says when
 * (`retired_on`, the last of its routes' recorded shutdown dates);
 * test/unit/catalog-sources.test.ts holds the statuses to the records' dates
 * on the day it runs.
 */
import type { CatalogModel } from './types.js';

export const CATALOG: readonly CatalogModel[] = [
  // ───────────────────────────── image (per image) ─────────────────────────────
  {
    slug: 'gpt-image-1',
    display_name: 'GPT Image 1',
    modality: 'image',
    routes: [{ provider: 'openai', upstream: 'gpt-image-1' }],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'text-rendering'],
    unit_cost_usd: '0.042', // medium quality (pinned), 1024×1024; 1536×1024 and 1024×1536 are $0.063 (the record's price tiers)
    status: 'delisted',
    retired_on: '2026-10-23', // OpenAI shut it down (its record's lifecycle)
  },
  {
    slug: 'gpt-image-1-mini',
    display_name: 'GPT Image 1 Mini',
    modality: 'image',
    routes: [{ provider: 'openai', upstream: 'gpt-image-1-mini' }],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'text-rendering'],
    unit_cost_usd: '0.011', // medium quality (pinned), 1024×1024; 1536×1024 and 1024×1536 are $0.015 (the record's price tiers)
    status: 'delisted',
    retired_on: '2026-12-01', // OpenAI shut it down (its record's lifecycle); successor: gpt-image-2.6-sunburst
  },
  {
    slug: 'gpt-image-2',
    display_name: 'GPT Image 2',
    modality: 'image',
    routes: [{ provider: 'openai', upstream: 'gpt-image-2' }],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'text-rendering'],
    unit_cost_usd: '0.06', // estimate (its record's price_source: 2,000 output tokens at $30 / 1M): medium quality (pinned), 1024×1024; 1536×1024 and 1024×1536 ≈ $0.05
    status: 'active',
    aliases: ['gpt-image-2-2026-04-21'],
  },
  {
    slug: 'gpt-image-2.6-sunburst',
    display_name: 'GPT Image 2.6 Sunburst',
    modality: 'image',
    routes: [{ provider: 'openai', upstream: 'gpt-image-2.6-sunburst' }],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'text-rendering'],
    unit_cost_usd: '0.06', // estimate (its record's price_source: 2,000 output tokens at $30 / 1M): medium quality (pinned), 1024×1024; 1536×1024 and 1024×1536 ≈ $0.05
    status: 'active',
  },
  {
    slug: 'flux-schnell',
    display_name: 'FLUX.1 [schnell]',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'black-forest-labs/flux-schnell' },
      { provider: 'fal', upstream: 'fal-ai/flux/schnell' },
    ],
    capabilities: ['text-to-image', 'seed'],
    unit_cost_usd: '0.003',
    status: 'active',
  },
  {
    slug: 'flux-dev',
    display_name: 'FLUX.1 [dev]',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'black-forest-labs/flux-dev' },
      { provider: 'fal', upstream: 'fal-ai/flux/dev' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'seed'],
    unit_cost_usd: '0.025',
    status: 'active',
  },
  {
    slug: 'flux-1.1-pro',
    display_name: 'FLUX1.1 [pro]',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'black-forest-labs/flux-1.1-pro' },
      { provider: 'fal', upstream: 'fal-ai/flux-pro/v1.1' },
    ],
    capabilities: ['text-to-image', 'seed'],
    unit_cost_usd: '0.04',
    status: 'active',
  },
  {
    slug: 'flux-1.1-pro-ultra',
    display_name: 'FLUX1.1 [pro] Ultra',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'black-forest-labs/flux-1.1-pro-ultra' },
      { provider: 'fal', upstream: 'fal-ai/flux-pro/v1.1-ultra' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'seed'],
    unit_cost_usd: '0.06',
    status: 'active',
  },
  {
    slug: 'flux-kontext-pro',
    display_name: 'FLUX.1 Kontext [pro]',
    modality: 'image',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/flux-pro/kontext' },
      { provider: 'replicate', upstream: 'black-forest-labs/flux-kontext-pro' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'seed'],
    unit_cost_usd: '0.04',
    status: 'active',
  },
  {
    slug: 'stable-diffusion-3.5-large',
    display_name: 'Stable Diffusion 3.5 Large',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'stability-ai/stable-diffusion-3.5-large' },
      { provider: 'fal', upstream: 'fal-ai/stable-diffusion-v35-large' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'negative-prompt', 'seed'],
    unit_cost_usd: '0.065',
    status: 'active',
  },
  {
    slug: 'imagen-4',
    display_name: 'Google Imagen 4',
    modality: 'image',
    routes: [
      { provider: 'replicate', upstream: 'google/imagen-4' },
      { provider: 'fal', upstream: 'fal-ai/imagen4/preview' },
    ],
    capabilities: ['text-to-image', 'text-rendering'],
    unit_cost_usd: '0.04',
    status: 'delisted',
    retired_on: '2026-08-17', // Google shut the imagen-4.0 models down (the records' lifecycle); successor: nano-banana-2
  },
  {
    slug: 'nano-banana',
    display_name: 'Nano Banana (Gemini 2.5 Flash Image)',
    modality: 'image',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/nano-banana' },
      { provider: 'replicate', upstream: 'google/nano-banana' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing'],
    unit_cost_usd: '0.039',
    status: 'delisted',
    retired_on: '2026-10-02', // Google shut gemini-2.5-flash-image down (the records' lifecycle); successor: nano-banana-2
  },
  {
    slug: 'seedream-4',
    display_name: 'ByteDance Seedream 4.0',
    modality: 'image',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/bytedance/seedream/v4/text-to-image' },
      { provider: 'replicate', upstream: 'bytedance/seedream-4' },
    ],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'seed'],
    unit_cost_usd: '0.03',
    status: 'active',
  },
  {
    slug: 'ideogram-v3-turbo',
    display_name: 'Ideogram 3.0 Turbo',
    modality: 'image',
    routes: [{ provider: 'replicate', upstream: 'ideogram-ai/ideogram-v3-turbo' }],
    capabilities: ['text-to-image', 'text-rendering', 'seed'],
    unit_cost_usd: '0.03',
    status: 'active',
  },
  {
    slug: 'recraft-v3',
    display_name: 'Recraft V3',
    modality: 'image',
    routes: [{ provider: 'replicate', upstream: 'recraft-ai/recraft-v3' }],
    capabilities: ['text-to-image', 'text-rendering'],
    unit_cost_usd: '0.04',
    status: 'active',
  },
  {
    slug: 'nano-banana-2',
    display_name: 'Nano Banana 2 (Gemini 3.1 Flash Image)',
    modality: 'image',
    routes: [{ provider: 'fal', upstream: 'fal-ai/nano-banana-2' }],
    capabilities: ['text-to-image', 'image-to-image', 'image-editing', 'text-rendering', 'seed'],
    unit_cost_usd: '0.08', // 1K resolution (pinned), no web search
    status: 'active',
  },
  {
    slug: 'dall-e-2',
    display_name: 'DALL·E 2',
    modality: 'image',
    routes: [{ provider: 'openai', upstream: 'dall-e-2' }],
    capabilities: ['text-to-image', 'image-editing'],
    unit_cost_usd: '0.02', // 1024×1024
    status: 'delisted',
  },
  {
    slug: 'stable-diffusion-2.1',
    display_name: 'Stable Diffusion 2.1',
    modality: 'image',
    routes: [{ provider: 'replicate', upstream: 'stability-ai/stable-diffusion' }],
    capabilities: ['text-to-image', 'negative-prompt', 'seed'],
    unit_cost_usd: '0.0034', // ≈ per run
    status: 'delisted',
  },

  // ───────────────────────── video (per second of output) ─────────────────────────
  {
    slug: 'kling-v2.1-master',
    display_name: 'Kling 2.1 Master',
    modality: 'video',
    routes: [
      { provider: 'replicate', upstream: 'kwaivgi/kling-v2.1-master' },
      { provider: 'fal', upstream: 'fal-ai/kling-video/v2.1/master/text-to-video' },
    ],
    capabilities: ['text-to-video', 'image-to-video'],
    unit_cost_usd: '0.28',
    status: 'active',
  },
  {
    slug: 'kling-v2.5-turbo-pro',
    display_name: 'Kling 2.5 Turbo Pro',
    modality: 'video',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/kling-video/v2.5-turbo/pro/text-to-video' },
      { provider: 'replicate', upstream: 'kwaivgi/kling-v2.5-turbo-pro' },
    ],
    capabilities: ['text-to-video', 'image-to-video'],
    unit_cost_usd: '0.07',
    status: 'active',
  },
  {
    slug: 'veo-3.1',
    display_name: 'Google Veo 3.1',
    modality: 'video',
    routes: [
      { provider: 'replicate', upstream: 'google/veo-3.1' },
      { provider: 'fal', upstream: 'fal-ai/veo3.1' },
    ],
    capabilities: ['text-to-video', 'image-to-video', 'native-audio', 'seed'],
    unit_cost_usd: '0.4', // with audio
    status: 'active',
  },
  {
    slug: 'veo-3.1-fast',
    display_name: 'Google Veo 3.1 Fast',
    modality: 'video',
    routes: [
      { provider: 'replicate', upstream: 'google/veo-3.1-fast' },
      { provider: 'fal', upstream: 'fal-ai/veo3.1/fast' },
    ],
    capabilities: ['text-to-video', 'image-to-video', 'native-audio', 'seed'],
    unit_cost_usd: '0.15', // with audio
    status: 'active',
  },
  {
    slug: 'hailuo-02',
    display_name: 'MiniMax Hailuo 02',
    modality: 'video',
    routes: [
      { provider: 'replicate', upstream: 'minimax/hailuo-02' },
      { provider: 'fal', upstream: 'fal-ai/minimax/hailuo-02/standard/text-to-video' },
    ],
    capabilities: ['text-to-video', 'image-to-video'],
    unit_cost_usd: '0.045', // 768p
    status: 'active',
  },
  {
    slug: 'seedance-1-pro',
    display_name: 'ByteDance Seedance 1.0 Pro',
    modality: 'video',
    routes: [
      { provider: 'replicate', upstream: 'bytedance/seedance-1-pro' },
      { provider: 'fal', upstream: 'fal-ai/bytedance/seedance/v1/pro/text-to-video' },
    ],
    capabilities: ['text-to-video', 'image-to-video', 'seed'],
    unit_cost_usd: '0.15', // 1080p
    status: 'active',
  },
  {
    slug: 'wan-2.2',
    display_name: 'Wan 2.2 A14B',
    modality: 'video',
    routes: [{ provider: 'fal', upstream: 'fal-ai/wan/v2.2-a14b/text-to-video' }],
    capabilities: ['text-to-video', 'seed'],
    unit_cost_usd: '0.08', // 720p
    status: 'active',
  },
  {
    slug: 'hunyuan-video',
    display_name: 'Tencent HunyuanVideo',
    modality: 'video',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/hunyuan-video' },
      { provider: 'replicate', upstream: 'tencent/hunyuan-video' },
    ],
    capabilities: ['text-to-video', 'seed'],
    unit_cost_usd: '0.08', // ≈ $0.40 per 5 s clip
    status: 'active',
  },
  {
    slug: 'sora-2',
    display_name: 'OpenAI Sora 2',
    modality: 'video',
    routes: [{ provider: 'fal', upstream: 'fal-ai/sora-2/text-to-video' }],
    capabilities: ['text-to-video', 'native-audio'],
    unit_cost_usd: '0.1', // 720p
    status: 'delisted',
    retired_on: '2026-09-24', // OpenAI shut Sora 2 down, and fal's route is gone (the record's lifecycle); no successor named
  },
  {
    slug: 'kling-v3',
    display_name: 'Kling 3.0 Standard',
    modality: 'video',
    routes: [{ provider: 'fal', upstream: 'fal-ai/kling-video/v3/standard/text-to-video' }],
    capabilities: ['text-to-video', 'image-to-video', 'native-audio'],
    unit_cost_usd: '0.126', // with audio (pinned)
    status: 'active',
  },
  {
    slug: 'seedance-2.0',
    display_name: 'ByteDance Seedance 2.0',
    modality: 'video',
    routes: [{ provider: 'fal', upstream: 'bytedance/seedance-2.0/text-to-video' }],
    capabilities: ['text-to-video', 'image-to-video', 'native-audio'],
    unit_cost_usd: '0.3034', // 720p (pinned), audio included
    status: 'active',
  },
  {
    slug: 'zeroscope-v2-xl',
    display_name: 'Zeroscope v2 XL',
    modality: 'video',
    routes: [{ provider: 'replicate', upstream: 'anotherjesse/zeroscope-v2-xl' }],
    capabilities: ['text-to-video', 'negative-prompt', 'seed'],
    unit_cost_usd: '0.017', // ≈ per second, from per-run compute
    status: 'delisted',
  },
  {
    slug: 'stable-video-diffusion',
    display_name: 'Stable Video Diffusion',
    modality: 'video',
    routes: [{ provider: 'replicate', upstream: 'stability-ai/stable-video-diffusion' }],
    capabilities: ['image-to-video', 'seed'],
    unit_cost_usd: '0.02', // ≈ per second, from per-run compute
    status: 'delisted',
  },

  // ──────────────────────── voice (per 1,000 input characters) ────────────────────────
  {
    slug: 'tts-1',
    display_name: 'OpenAI TTS',
    modality: 'voice',
    routes: [{ provider: 'openai', upstream: 'tts-1' }],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'low-latency'],
    unit_cost_usd: '0.015',
    status: 'active',
  },
  {
    slug: 'tts-1-hd',
    display_name: 'OpenAI TTS HD',
    modality: 'voice',
    routes: [{ provider: 'openai', upstream: 'tts-1-hd' }],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection'],
    unit_cost_usd: '0.03',
    status: 'active',
  },
  {
    slug: 'gpt-4o-mini-tts',
    display_name: 'GPT-4o mini TTS',
    modality: 'voice',
    routes: [{ provider: 'openai', upstream: 'gpt-4o-mini-tts' }],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'voice-instructions'],
    unit_cost_usd: '0.015', // ≈ token-billed; ~1,000 characters ≈ 1 minute ≈ $0.015
    status: 'active',
  },
  {
    slug: 'eleven-multilingual-v2',
    display_name: 'ElevenLabs Multilingual v2',
    modality: 'voice',
    routes: [
      { provider: 'elevenlabs', upstream: 'eleven_multilingual_v2' },
      { provider: 'fal', upstream: 'fal-ai/elevenlabs/tts/multilingual-v2' },
    ],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'expressive'],
    unit_cost_usd: '0.1',
    status: 'active',
    aliases: ['eleven_multilingual_v2'],
  },
  {
    slug: 'eleven-v3',
    display_name: 'ElevenLabs Eleven v3',
    modality: 'voice',
    routes: [
      { provider: 'elevenlabs', upstream: 'eleven_v3' },
      { provider: 'fal', upstream: 'fal-ai/elevenlabs/tts/eleven-v3' },
    ],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'expressive'],
    unit_cost_usd: '0.1',
    status: 'active',
    aliases: ['eleven_v3'],
  },
  {
    slug: 'eleven-turbo-v2.5',
    display_name: 'ElevenLabs Turbo v2.5',
    modality: 'voice',
    routes: [
      { provider: 'elevenlabs', upstream: 'eleven_turbo_v2_5' },
      { provider: 'fal', upstream: 'fal-ai/elevenlabs/tts/turbo-v2.5' },
    ],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'low-latency'],
    unit_cost_usd: '0.05',
    status: 'active',
    aliases: ['eleven_turbo_v2_5'],
  },
  {
    slug: 'eleven-flash-v2.5',
    display_name: 'ElevenLabs Flash v2.5',
    modality: 'voice',
    routes: [{ provider: 'elevenlabs', upstream: 'eleven_flash_v2_5' }],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'low-latency'],
    unit_cost_usd: '0.05',
    status: 'active',
    aliases: ['eleven_flash_v2_5'],
  },
  {
    slug: 'kokoro-82m',
    display_name: 'Kokoro 82M',
    modality: 'voice',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/kokoro/american-english' },
      { provider: 'replicate', upstream: 'jaaari/kokoro-82m' },
    ],
    capabilities: ['text-to-speech', 'voice-selection', 'low-latency'],
    unit_cost_usd: '0.02',
    status: 'active',
  },
  {
    slug: 'minimax-speech-02-hd',
    display_name: 'MiniMax Speech-02 HD',
    modality: 'voice',
    routes: [
      { provider: 'replicate', upstream: 'minimax/speech-02-hd' },
      { provider: 'fal', upstream: 'fal-ai/minimax/speech-02-hd' },
    ],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection', 'expressive'],
    unit_cost_usd: '0.1',
    status: 'active',
  },
  {
    slug: 'eleven-monolingual-v1',
    display_name: 'ElevenLabs English v1',
    modality: 'voice',
    routes: [{ provider: 'elevenlabs', upstream: 'eleven_monolingual_v1' }],
    capabilities: ['text-to-speech', 'voice-selection'],
    unit_cost_usd: '0.3',
    status: 'delisted',
    aliases: ['eleven_monolingual_v1'],
  },
  {
    slug: 'eleven-multilingual-v1',
    display_name: 'ElevenLabs Multilingual v1',
    modality: 'voice',
    routes: [{ provider: 'elevenlabs', upstream: 'eleven_multilingual_v1' }],
    capabilities: ['text-to-speech', 'multilingual', 'voice-selection'],
    unit_cost_usd: '0.3',
    status: 'delisted',
    aliases: ['eleven_multilingual_v1'],
  },

  // ───────────────────────── music (per second of output) ─────────────────────────
  {
    slug: 'eleven-music',
    display_name: 'ElevenLabs Eleven Music',
    modality: 'music',
    routes: [{ provider: 'elevenlabs', upstream: 'music_v1' }],
    capabilities: ['text-to-music', 'vocals', 'instrumental'],
    unit_cost_usd: '0.005', // $0.30 per minute (ElevenLabs' API pricing)
    status: 'active',
  },
  {
    slug: 'eleven-music-v2.5',
    display_name: 'ElevenLabs Eleven Music v2.5',
    modality: 'music',
    routes: [{ provider: 'elevenlabs', upstream: 'music_v2_5' }],
    capabilities: ['text-to-music', 'vocals', 'instrumental'],
    unit_cost_usd: '0.005', // $0.30 per minute (ElevenLabs' API pricing)
    status: 'active',
    aliases: ['music_v2_5'],
  },
  {
    slug: 'lyria-2',
    display_name: 'Google Lyria 2',
    modality: 'music',
    routes: [
      { provider: 'replicate', upstream: 'google/lyria-2' },
      { provider: 'fal', upstream: 'fal-ai/lyria2' },
    ],
    capabilities: ['text-to-music', 'instrumental'],
    unit_cost_usd: '0.002', // $2 per 1,000 seconds on Replicate; fal's fallback is $0.10 per 30 s clip (its record's price, per output)
    status: 'active',
  },
  {
    slug: 'minimax-music-1.5',
    display_name: 'MiniMax Music 1.5',
    modality: 'music',
    routes: [
      { provider: 'replicate', upstream: 'minimax/music-1.5' },
      { provider: 'fal', upstream: 'fal-ai/minimax-music/v1.5' },
    ],
    capabilities: ['text-to-music', 'vocals', 'lyrics'],
    unit_cost_usd: '0.00025', // ≈ for display: both routes bill $0.03 per song whatever its length (their records' price, per output)
    status: 'active',
  },
  {
    slug: 'stable-audio-2.5',
    display_name: 'Stable Audio 2.5',
    modality: 'music',
    routes: [{ provider: 'fal', upstream: 'fal-ai/stable-audio-25/text-to-audio' }],
    capabilities: ['text-to-music', 'instrumental'],
    unit_cost_usd: '0.002', // ≈ for display: fal bills $0.20 per track whatever its length (its record's price, per output)
    status: 'active',
  },
  {
    slug: 'musicgen',
    display_name: 'Meta MusicGen',
    modality: 'music',
    routes: [{ provider: 'replicate', upstream: 'meta/musicgen' }],
    capabilities: ['text-to-music', 'instrumental', 'melody-conditioning'],
    unit_cost_usd: '0.0025', // ≈ from per-run compute
    status: 'active',
  },
  {
    slug: 'ace-step',
    display_name: 'ACE-Step',
    modality: 'music',
    routes: [{ provider: 'fal', upstream: 'fal-ai/ace-step' }],
    capabilities: ['text-to-music', 'vocals', 'lyrics', 'instrumental'],
    unit_cost_usd: '0.0002',
    status: 'active',
  },
  {
    slug: 'lyria-3',
    display_name: 'Google Lyria 3',
    modality: 'music',
    routes: [{ provider: 'fal', upstream: 'fal-ai/lyria3' }],
    capabilities: ['text-to-music', 'vocals'],
    unit_cost_usd: '0.0013', // ≈ for display: fal bills $0.04 per 30 s clip (its record's price, per output)
    status: 'active',
  },
  {
    slug: 'riffusion',
    display_name: 'Riffusion v1',
    modality: 'music',
    routes: [{ provider: 'replicate', upstream: 'riffusion/riffusion' }],
    capabilities: ['text-to-music', 'instrumental'],
    unit_cost_usd: '0.002', // ≈ from per-run compute
    status: 'delisted',
  },

  // ──────────────────────── avatar (per second of output) ────────────────────────
  // The audio-driven ones take a portrait and speech; a text request is spoken first by their `speech_model`
  // (ElevenLabs' turbo voice: routed to ElevenLabs and to fal, the avatars' own provider).
  {
    slug: 'omnihuman',
    display_name: 'ByteDance OmniHuman',
    modality: 'avatar',
    routes: [
      { provider: 'replicate', upstream: 'bytedance/omni-human' },
      { provider: 'fal', upstream: 'fal-ai/bytedance/omnihuman' },
    ],
    speech_model: 'eleven-turbo-v2.5',
    capabilities: ['talking-head', 'lipsync', 'audio-driven'],
    unit_cost_usd: '0.14',
    status: 'active',
  },
  {
    slug: 'omnihuman-1.5',
    display_name: 'ByteDance OmniHuman 1.5',
    modality: 'avatar',
    routes: [{ provider: 'fal', upstream: 'fal-ai/bytedance/omnihuman/v1.5' }],
    speech_model: 'eleven-turbo-v2.5',
    capabilities: ['talking-head', 'lipsync', 'audio-driven'],
    unit_cost_usd: '0.16',
    status: 'active',
  },
  {
    slug: 'kling-ai-avatar',
    display_name: 'Kling AI Avatar (Standard)',
    modality: 'avatar',
    routes: [{ provider: 'fal', upstream: 'fal-ai/kling-video/v1/standard/ai-avatar' }],
    speech_model: 'eleven-turbo-v2.5',
    capabilities: ['talking-head', 'lipsync', 'audio-driven'],
    unit_cost_usd: '0.0562',
    status: 'active',
  },
  {
    slug: 'fabric-1.0',
    display_name: 'VEED Fabric 1.0',
    modality: 'avatar',
    routes: [{ provider: 'fal', upstream: 'veed/fabric-1.0' }],
    speech_model: 'eleven-turbo-v2.5',
    capabilities: ['talking-head', 'lipsync', 'audio-driven'],
    unit_cost_usd: '0.08', // 480p
    status: 'active',
  },
  {
    slug: 'fabric-1.0-text',
    display_name: 'VEED Fabric 1.0 (text)',
    modality: 'avatar',
    routes: [{ provider: 'fal', upstream: 'veed/fabric-1.0/text' }],
    capabilities: ['talking-head', 'lipsync', 'text-driven'],
    unit_cost_usd: '0.08', // 480p
    status: 'active',
  },
  // lipsync-2 (sync/lipsync-2, fal-ai/sync-lipsync/v2) was here: both endpoints need a source video, which no mmgen
  // request supplies (avatars take an image), so every request would have failed upstream. It returns when avatar
  // requests can carry a video (docs/contract-addenda.md, "Providers").
  {
    slug: 'wav2lip',
    display_name: 'Wav2Lip',
    modality: 'avatar',
    routes: [{ provider: 'replicate', upstream: 'devxpy/cog-wav2lip' }],
    capabilities: ['lipsync', 'audio-driven', 'video-to-video'],
    unit_cost_usd: '0.005', // ≈ from per-run compute
    status: 'delisted',
  },

  // ───────────────────────── chat (per OUTPUT token) ─────────────────────────
  {
    slug: 'gpt-4o-mini',
    display_name: 'GPT-4o mini',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-4o-mini' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools'],
    unit_cost_usd: '0.0000006', // $0.60 / 1M output tokens
    status: 'active',
    aliases: ['gpt-4o-mini-2024-07-18'],
  },
  {
    slug: 'gpt-4o',
    display_name: 'GPT-4o',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-4o' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools'],
    unit_cost_usd: '0.00001', // $10 / 1M
    status: 'active',
    aliases: ['gpt-4o-2024-08-06'],
  },
  {
    slug: 'gpt-4.1',
    display_name: 'GPT-4.1',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-4.1' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools'],
    unit_cost_usd: '0.000008', // $8 / 1M
    status: 'active',
    aliases: ['gpt-4.1-2025-04-14'],
  },
  {
    slug: 'gpt-4.1-mini',
    display_name: 'GPT-4.1 mini',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-4.1-mini' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools'],
    unit_cost_usd: '0.0000016', // $1.60 / 1M
    status: 'active',
    aliases: ['gpt-4.1-mini-2025-04-14'],
  },
  {
    slug: 'gpt-5',
    display_name: 'GPT-5',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-5' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.00001', // $10 / 1M
    status: 'delisted',
    retired_on: '2026-12-11', // OpenAI shuts it down (its record's lifecycle); served until that day (Catalog.onDate)
    aliases: ['gpt-5-2025-08-07'],
  },
  {
    slug: 'gpt-5-mini',
    display_name: 'GPT-5 mini',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-5-mini' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.000002', // $2 / 1M
    status: 'delisted',
    retired_on: '2026-12-11', // OpenAI shuts it down (its record's lifecycle); served until that day (Catalog.onDate)
    aliases: ['gpt-5-mini-2025-08-07'],
  },
  {
    slug: 'gpt-6.2-astra',
    display_name: 'GPT-6.2 Astra',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-6.2-astra' }],
    capabilities: ['chat', 'streaming', 'vision', 'reasoning'],
    unit_cost_usd: '0.00004', // $40 / 1M output tokens
    status: 'active',
  },
  {
    slug: 'gpt-6.2-sol',
    display_name: 'GPT-6.2 Sol',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-6.2-sol' }],
    capabilities: ['chat', 'streaming', 'vision', 'reasoning'],
    unit_cost_usd: '0.00001', // $10 / 1M
    status: 'active',
  },
  {
    slug: 'gpt-6.1-sol',
    display_name: 'GPT-6.1 Sol',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-6.1-sol' }],
    capabilities: ['chat', 'streaming', 'vision', 'reasoning'],
    unit_cost_usd: '0.00001', // $10 / 1M
    status: 'active',
  },
  {
    slug: 'gpt-6.1-terra',
    display_name: 'GPT-6.1 Terra',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-6.1-terra' }],
    capabilities: ['chat', 'streaming', 'vision', 'reasoning'],
    unit_cost_usd: '0.000005', // $5 / 1M
    status: 'active',
  },
  {
    slug: 'gpt-6-luna',
    display_name: 'GPT-6 Luna',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-6-luna' }],
    capabilities: ['chat', 'streaming', 'vision', 'reasoning'],
    unit_cost_usd: '0.0000005', // $0.50 / 1M
    status: 'active',
  },
  {
    slug: 'claude-sonnet-4',
    display_name: 'Claude Sonnet 4',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-sonnet-4-20250514' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.000015', // $15 / 1M
    status: 'delisted',
    retired_on: '2026-06-15', // Anthropic retired it (its record's lifecycle)
    aliases: ['claude-sonnet-4-20250514'],
  },
  {
    slug: 'claude-sonnet-4.5',
    display_name: 'Claude Sonnet 4.5',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-sonnet-4-5-20250929' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.000015', // $15 / 1M
    status: 'delisted',
    retired_on: '2026-11-30', // Anthropic shut it down (its record's lifecycle)
    aliases: ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'],
  },
  {
    slug: 'claude-haiku-4.5',
    display_name: 'Claude Haiku 4.5',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-haiku-4-5-20251001' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.000005', // $5 / 1M
    status: 'active',
    aliases: ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
  },
  {
    slug: 'claude-opus-4.1',
    display_name: 'Claude Opus 4.1',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-opus-4-1-20250805' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.000075', // $75 / 1M
    status: 'delisted',
    retired_on: '2026-08-05', // Anthropic retired it (its record's lifecycle)
    aliases: ['claude-opus-4-1', 'claude-opus-4-1-20250805'],
  },
  {
    slug: 'claude-opus-5.5',
    display_name: 'Claude Opus 5.5',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-opus-5-5' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.00002', // $20 / 1M
    status: 'active',
    aliases: ['claude-opus-5-5'],
  },
  {
    slug: 'claude-sonnet-5.5',
    display_name: 'Claude Sonnet 5.5',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-sonnet-5-5' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.00001', // $10 / 1M
    status: 'active',
    aliases: ['claude-sonnet-5-5'],
  },
  {
    slug: 'claude-haiku-5.5',
    display_name: 'Claude Haiku 5.5',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-haiku-5-5' }],
    capabilities: ['chat', 'streaming', 'vision', 'tools', 'reasoning'],
    unit_cost_usd: '0.0000005', // $0.50 / 1M for prompts up to 100,000 tokens ($2.50 above: see its record)
    status: 'active',
    aliases: ['claude-haiku-5-5'],
  },
  {
    slug: 'claude-2.1',
    display_name: 'Claude 2.1',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-2.1' }],
    capabilities: ['chat', 'streaming'],
    unit_cost_usd: '0.000024', // $24 / 1M
    status: 'delisted',
  },
  {
    slug: 'claude-instant-1.2',
    display_name: 'Claude Instant 1.2',
    modality: 'chat',
    routes: [{ provider: 'anthropic', upstream: 'claude-instant-1.2' }],
    capabilities: ['chat', 'streaming'],
    unit_cost_usd: '0.0000024', // $2.40 / 1M
    status: 'delisted',
  },
  {
    slug: 'gpt-3.5-turbo-0301',
    display_name: 'GPT-3.5 Turbo (0301)',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-3.5-turbo-0301' }],
    capabilities: ['chat', 'streaming'],
    unit_cost_usd: '0.000002', // $2 / 1M
    status: 'delisted',
  },
  {
    slug: 'gpt-4-0314',
    display_name: 'GPT-4 (0314)',
    modality: 'chat',
    routes: [{ provider: 'openai', upstream: 'gpt-4-0314' }],
    capabilities: ['chat', 'streaming'],
    unit_cost_usd: '0.00006', // $60 / 1M
    status: 'delisted',
  },

  // ─────────────────────────────── 3d (per mesh) ───────────────────────────────
  {
    slug: 'hunyuan3d-2',
    display_name: 'Tencent Hunyuan3D 2.0',
    modality: '3d',
    routes: [{ provider: 'fal', upstream: 'fal-ai/hunyuan3d/v2' }],
    capabilities: ['image-to-3d', 'glb', 'textured'],
    unit_cost_usd: '0.16',
    status: 'active',
  },
  {
    slug: 'hunyuan3d-3',
    display_name: 'Tencent Hunyuan3D 3.0',
    modality: '3d',
    routes: [{ provider: 'fal', upstream: 'fal-ai/hunyuan3d-v3/text-to-3d' }],
    capabilities: ['text-to-3d', 'glb', 'textured', 'pbr'],
    unit_cost_usd: '0.375',
    status: 'active',
  },
  {
    slug: 'trellis',
    display_name: 'Microsoft TRELLIS',
    modality: '3d',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/trellis' },
      { provider: 'replicate', upstream: 'firtoz/trellis' },
    ],
    capabilities: ['image-to-3d', 'glb', 'textured'],
    unit_cost_usd: '0.02',
    status: 'active',
  },
  {
    slug: 'rodin',
    display_name: 'Hyper3D Rodin',
    modality: '3d',
    routes: [{ provider: 'fal', upstream: 'fal-ai/hyper3d/rodin' }],
    capabilities: ['text-to-3d', 'image-to-3d', 'glb', 'textured', 'pbr'],
    unit_cost_usd: '0.4',
    status: 'active',
  },
  {
    slug: 'tripo-v2.5',
    display_name: 'Tripo 2.5',
    modality: '3d',
    routes: [{ provider: 'fal', upstream: 'tripo3d/tripo/v2.5/text-to-3d' }],
    capabilities: ['text-to-3d', 'glb', 'textured', 'pbr'],
    unit_cost_usd: '0.3',
    status: 'delisted', // its endpoint is not in fal's endpoint list (2026-08-02); no shutdown date or successor is published
  },
  {
    slug: 'shap-e',
    display_name: 'OpenAI Shap-E',
    modality: '3d',
    routes: [{ provider: 'replicate', upstream: 'cjwbw/shap-e' }],
    capabilities: ['text-to-3d', 'image-to-3d'],
    unit_cost_usd: '0.03', // ≈ from per-run compute
    status: 'delisted',
  },

  // ───────────────────────── upscale (per output image) ─────────────────────────
  {
    slug: 'real-esrgan',
    display_name: 'Real-ESRGAN',
    modality: 'upscale',
    routes: [
      { provider: 'replicate', upstream: 'nightmareai/real-esrgan' },
      { provider: 'fal', upstream: 'fal-ai/esrgan' },
    ],
    capabilities: ['upscale-2x', 'upscale-4x', 'face-restore'],
    unit_cost_usd: '0.002', // ≈ from per-run compute
    status: 'active',
  },
  {
    slug: 'clarity-upscaler',
    display_name: 'Clarity Upscaler',
    modality: 'upscale',
    routes: [
      { provider: 'replicate', upstream: 'philz1337x/clarity-upscaler' },
      { provider: 'fal', upstream: 'fal-ai/clarity-upscaler' },
    ],
    capabilities: ['upscale-2x', 'upscale-4x', 'generative-detail'],
    unit_cost_usd: '0.03', // ≈ from per-run compute
    status: 'active',
  },
  {
    slug: 'recraft-crisp-upscale',
    display_name: 'Recraft Crisp Upscale',
    modality: 'upscale',
    routes: [
      { provider: 'replicate', upstream: 'recraft-ai/recraft-crisp-upscale' },
      { provider: 'fal', upstream: 'fal-ai/recraft/upscale/crisp' },
    ],
    capabilities: ['upscale-2x'],
    unit_cost_usd: '0.006',
    status: 'active',
  },
  {
    slug: 'codeformer',
    display_name: 'CodeFormer',
    modality: 'upscale',
    routes: [
      { provider: 'replicate', upstream: 'sczhou/codeformer' },
      { provider: 'fal', upstream: 'fal-ai/codeformer' },
    ],
    capabilities: ['upscale-2x', 'upscale-4x', 'face-restore'],
    unit_cost_usd: '0.005', // ≈ from per-run compute
    status: 'active',
  },
  {
    slug: 'gfpgan',
    display_name: 'GFPGAN',
    modality: 'upscale',
    routes: [{ provider: 'replicate', upstream: 'tencentarc/gfpgan' }],
    capabilities: ['upscale-2x', 'upscale-4x', 'face-restore'],
    unit_cost_usd: '0.003', // ≈ from per-run compute
    status: 'active',
  },
  {
    slug: 'topaz-image-upscale',
    display_name: 'Topaz Image Upscale',
    modality: 'upscale',
    routes: [
      { provider: 'fal', upstream: 'fal-ai/topaz/upscale/image' },
      { provider: 'replicate', upstream: 'topazlabs/image-upscale' },
    ],
    capabilities: ['upscale-2x', 'upscale-4x', 'face-restore'],
    unit_cost_usd: '0.08', // up to 24 MP output
    status: 'active',
  },
  {
    slug: 'swinir',
    display_name: 'SwinIR',
    modality: 'upscale',
    routes: [{ provider: 'replicate', upstream: 'jingyunliang/swinir' }],
    capabilities: ['upscale-4x'],
    unit_cost_usd: '0.003', // ≈ from per-run compute
    status: 'delisted',
  },
];
