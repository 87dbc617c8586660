import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDurationMs, parseDurationMs } from '../../../media/durations.js';
import { renderAudio } from './audio.js';
import { renderCache } from './cache.js';
import { MediaError, MediaInputError, requireInt, seedKey, type Seed } from '../../../media/errors.js';
import { chooseVideoCodec, ffmpegCapabilities, runFfmpeg, withTempDir } from '../../../media/ffmpeg.js';
import { digestHex, rngFor, type Rng } from './hash.js';
import { rgbToJpeg, type RenderedImage } from './image.js';
import { parseMp4 } from '../../../media/mp4.js';
import { makePalette, type Rgb } from './palette.js';

export const VIDEO_DEFAULT_WIDTH = 512;
export const VIDEO_DEFAULT_HEIGHT = 288;
export const VIDEO_MIN_SIDE = 128;
export const VIDEO_MAX_SIDE = 1920;
export const VIDEO_MIN_MS = 500;
export const VIDEO_MAX_MS = 60_000;
export const VIDEO_DEFAULT_FPS = 8;
export const VIDEO_MAX_FPS = 30;

export interface RenderVideoOptions {
  prompt: string;
  seed?: Seed;
  /** Seconds (number or decimal string), rounded to the millisecond. */
  durationS: number | string;
  width?: number;
  height?: number;
  /** Nominal frame rate (default 8); the exact rate is adjusted so the video lasts exactly durationS. */
  fps?: number;
  /** Add an AAC soundtrack: the music tone pattern for the same prompt and seed. */
  audio?: boolean;
  /** Add an AAC soundtrack speaking this text (voice babble, as renderAudio({text})); for avatars. */
  speech?: string;
  /** Add this audio file (any format ffmpeg reads) as the AAC soundtrack: an avatar lip-syncing given speech. */
  soundtrack?: Buffer;
}

export interface RenderedVideo {
  video: {
    bytes: Buffer;
    mime: 'video/mp4';
    width: number;
    height: number;
    /**
     * Length of the video track as encoded, e.g. "5" or "12.48": the request to
     * the millisecond with H.264 (MPEG-4 Part 2 may differ by a millisecond).
     * A soundtrack may run up to one AAC frame (~43 ms) longer.
     */
    durationS: string;
    /** Actual mean frame rate. */
    fps: number;
    codec: 'h264' | 'mpeg4';
  };
  thumbnail: RenderedImage;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

interface Blob {
  color: Rgb;
  radius: number;
  cx: number;
  cy: number;
  orbitX: number;
  orbitY: number;
  /** Revolutions per second. */
  speed: number;
  phase: number;
  alpha: number;
}

interface Scene {
  stops: Rgb[];
  dirX: number;
  dirY: number;
  drift: number;
  blobs: Blob[];
  bar: Rgb;
}

function makeScene(rng: Rng, w: number, h: number): Scene {
  const pal = makePalette(rng);
  const angle = rng.range(0, Math.PI * 2);
  const blobs: Blob[] = [];
  const n = rng.int(3, 6);
  const m = Math.min(w, h);
  for (let i = 0; i < n; i++) {
    blobs.push({
      color: rng.pick(pal.accents),
      radius: rng.range(0.08, 0.25) * m,
      cx: rng.range(0.2, 0.8) * w,
      cy: rng.range(0.2, 0.8) * h,
      orbitX: rng.range(0.05, 0.35) * w,
      orbitY: rng.range(0.05, 0.35) * h,
      speed: rng.range(0.05, 0.3) * (rng.chance(0.5) ? 1 : -1),
      phase: rng.range(0, Math.PI * 2),
      alpha: rng.range(0.5, 0.9),
    });
  }
  return {
    stops: pal.background,
    dirX: Math.cos(angle),
    dirY: Math.sin(angle),
    drift: rng.range(0.03, 0.12),
    blobs,
    bar: pal.accents[0] ?? pal.shadow,
  };
}

/** Rasterises one frame as packed RGB. Plain loops: this runs for every frame, so no per-pixel allocation. */
function drawFrame(scene: Scene, w: number, h: number, t: number, progress: number): Buffer {
  const px = Buffer.allocUnsafe(w * h * 3);
  const black: Rgb = [0, 0, 0];
  const [s0, s1, s2] = [scene.stops[0] ?? black, scene.stops[1] ?? black, scene.stops[2] ?? black];
  const span = Math.abs(scene.dirX) * w + Math.abs(scene.dirY) * h;
  const off = (scene.dirX < 0 ? -scene.dirX * w : 0) + (scene.dirY < 0 ? -scene.dirY * h : 0);
  // The gradient slides back and forth over time so even a still scene moves.
  const shift = 0.25 * Math.sin(2 * Math.PI * scene.drift * t);
  for (let y = 0; y < h; y++) {
    let o = y * w * 3;
    for (let x = 0; x < w; x++) {
      let g = (x * scene.dirX + y * scene.dirY + off) / span + shift;
      g = g < 0 ? 0 : g > 1 ? 1 : g;
      let a: Rgb, b: Rgb, k: number;
      if (g < 0.5) {
        a = s0; b = s1; k = g * 2;
      } else {
        a = s1; b = s2; k = (g - 0.5) * 2;
      }
      px[o++] = a[0] + (b[0] - a[0]) * k;
      px[o++] = a[1] + (b[1] - a[1]) * k;
      px[o++] = a[2] + (b[2] - a[2]) * k;
    }
  }
  for (const bl of scene.blobs) {
    const ang = bl.phase + 2 * Math.PI * bl.speed * t;
    const cx = bl.cx + bl.orbitX * Math.cos(ang);
    const cy = bl.cy + bl.orbitY * Math.sin(ang * 1.3);
    const r = bl.radius * (1 + 0.15 * Math.sin(ang * 2));
    const x0 = Math.max(0, Math.floor(cx - r - 1));
    const x1 = Math.min(w - 1, Math.ceil(cx + r + 1));
    const y0 = Math.max(0, Math.floor(cy - r - 1));
    const y1 = Math.min(h - 1, Math.ceil(cy + r + 1));
    for (let y = y0; y <= y1; y++) {
      const dy = y + 0.5 - cy;
      for (let x = x0; x <= x1; x++) {
        const dx = x + 0.5 - cx;
        // One pixel of linear falloff at the rim: cheap anti-aliasing.
        let cov = r - Math.sqrt(dx * dx + dy * dy) + 0.5;
        if (cov <= 0) continue;
        cov = (cov > 1 ? 1 : cov) * bl.alpha;
        const o = (y * w + x) * 3;
        px[o] = (px[o] ?? 0) + (bl.color[0] - (px[o] ?? 0)) * cov;
        px[o + 1] = (px[o + 1] ?? 0) + (bl.color[1] - (px[o + 1] ?? 0)) * cov;
        px[o + 2] = (px[o + 2] ?? 0) + (bl.color[2] - (px[o + 2] ?? 0)) * cov;
      }
    }
  }
  // A progress bar along the bottom: frames are visibly ordered, which helps
  // anyone checking a player or a thumbnail offset.
  const barH = Math.max(2, Math.round(h / 48));
  const barW = Math.round(w * progress);
  for (let y = h - barH; y < h; y++) {
    for (let x = 0; x < barW; x++) {
      const o = (y * w + x) * 3;
      px[o] = scene.bar[0];
      px[o + 1] = scene.bar[1];
      px[o + 2] = scene.bar[2];
    }
  }
  return px;
}

/**
 * A deterministic MP4 (H.264 when the ffmpeg binary has libx264, else MPEG-4
 * Part 2) of the requested length whose frames depend on the prompt and seed,
 * plus a JPEG thumbnail of the middle frame. Odd sizes are rounded down to
 * even, which 4:2:0 video requires. Cached by all inputs; returned Buffers are
 * shared.
 */
export async function renderVideo(opts: RenderVideoOptions): Promise<RenderedVideo> {
  if (typeof opts.prompt !== 'string') throw new MediaInputError('prompt must be a string');
  if (opts.speech !== undefined && typeof opts.speech !== 'string') throw new MediaInputError('speech must be a string');
  const width = requireInt('width', opts.width ?? VIDEO_DEFAULT_WIDTH, VIDEO_MIN_SIDE, VIDEO_MAX_SIDE) & ~1;
  const height = requireInt('height', opts.height ?? VIDEO_DEFAULT_HEIGHT, VIDEO_MIN_SIDE, VIDEO_MAX_SIDE) & ~1;
  const fps = requireInt('fps', opts.fps ?? VIDEO_DEFAULT_FPS, 1, VIDEO_MAX_FPS);
  const ms = parseDurationMs(opts.durationS, VIDEO_MIN_MS, VIDEO_MAX_MS);
  const frames = Math.max(1, Math.round((ms * fps) / 1000));
  // Whole frames at the nominal rate rarely add up to the requested length, so
  // the rate becomes the exact rational frames/duration (e.g. 100 frames in
  // 12.48 s = 625/78 fps). Billing is per second: the file must match it.
  const g = gcd(frames * 1000, ms);
  const rate = `${(frames * 1000) / g}/${ms / g}`;
  const seed = seedKey(opts.seed);
  const soundtrack = opts.soundtrack ? 'given' : opts.speech !== undefined ? 'speech' : opts.audio === true ? 'music' : 'none';
  const codec = await chooseVideoCodec();
  const given = opts.soundtrack ? digestHex(opts.soundtrack.toString('base64')) : '';
  const key = 'video:' + digestHex(opts.prompt, seed, width, height, fps, ms, soundtrack, opts.speech ?? '', given, codec);
  return renderCache.getOrCreate(
    key,
    async () => {
      if (soundtrack !== 'none' && !(await ffmpegCapabilities()).aac) throw new MediaError('this ffmpeg has no AAC encoder');
      const scene = makeScene(rngFor('video-scene', opts.prompt, seed), width, height);
      const thumbAt = Math.floor(frames / 2);
      let thumbFrame: Buffer | undefined;
      const bytes = await withTempDir(async (dir) => {
        const out = join(dir, 'out.mp4');
        const audioArgs: string[] = [];
        if (opts.soundtrack) {
          await writeFile(join(dir, 'a.audio'), opts.soundtrack);
          // As long as the video: the given speech decides the length (the caller probed it).
          audioArgs.push('-i', join(dir, 'a.audio'), '-c:a', 'aac', '-b:a', '64k', '-t', formatDurationMs(ms));
        } else if (soundtrack !== 'none') {
          const durationS = formatDurationMs(ms);
          const wav =
            soundtrack === 'speech'
              ? await renderAudio({ text: opts.speech ?? '', seed: opts.seed, durationS })
              : await renderAudio({ prompt: opts.prompt, seed: opts.seed, durationS });
          await writeFile(join(dir, 'a.wav'), wav.bytes);
          audioArgs.push('-i', join(dir, 'a.wav'), '-c:a', 'aac', '-b:a', '64k');
        }
        const videoArgs =
          codec === 'h264'
            ? // Pinned thread count: x264 output depends on it, and the cache
              // promises the same bytes on every host.
              ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-profile:v', 'main', '-threads', '2']
            : ['-c:v', 'mpeg4', '-q:v', '5', '-threads', '1'];
        await runFfmpeg(
          [
            '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-framerate', rate, '-i', 'pipe:0',
            ...audioArgs,
            ...videoArgs,
            '-pix_fmt', 'yuv420p', '-g', String(fps * 2),
            // No encoder version strings or timestamps in the container, so the
            // bytes depend only on the inputs.
            '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact',
            // moov first, so players can start before the download finishes.
            '-movflags', '+faststart',
            '-f', 'mp4', out,
          ],
          {
            timeoutMs: 30_000 + Math.ceil((frames * width * height) / 50_000),
            stdin: async (write) => {
              for (let i = 0; i < frames; i++) {
                const frame = drawFrame(scene, width, height, (i * ms) / frames / 1000, (i + 1) / frames);
                if (i === thumbAt) thumbFrame = frame;
                await write(frame);
              }
            },
          },
        );
        return readFile(out);
      });
      const track = parseMp4(bytes)?.tracks.find((t) => t.type === 'vide');
      if (!track) throw new MediaError('ffmpeg produced an MP4 without a readable video track');
      if (!thumbFrame) throw new MediaError('no thumbnail frame was drawn');
      const thumbnail = await rgbToJpeg(thumbFrame, width, height);
      const actualMs = Math.round(track.durationS * 1000);
      return {
        video: {
          bytes,
          mime: 'video/mp4',
          width,
          height,
          durationS: formatDurationMs(actualMs),
          fps: Number(((frames * 1000) / actualMs).toFixed(3)),
          codec,
        },
        thumbnail,
      } as RenderedVideo;
    },
    (v) => v.video.bytes.length + v.thumbnail.bytes.length + 512,
  );
}
