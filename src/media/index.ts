/**
 * Media utilities of the production path: what a file is (magic bytes, MIME,
 * a safe decode), its size and duration, a video's thumbnail, and ffmpeg.
 * The simulator's synthetic renderers are in src/providers/simulator/render/.
 */
export { probeImage, sniffImageMime, PROBE_MAX_PIXELS, UPSCALE_MAX_OUTPUT_PIXELS } from './image-probe.js';
export type { ImageMime, ProbeOptions } from './image-probe.js';

export { formatDurationMs, parseDurationMs, speechDurationS, SPEECH_CHARS_PER_SECOND, SPEECH_MIN_S } from './durations.js';

export { mimeToOutputType, extensionForMime } from './mime.js';
export type { OutputType } from './mime.js';

export { parseMp4 } from './mp4.js';
export { sniffMime, probeAudioVideo, videoFrames, videoThumbnail } from './probe.js';
export type { AvInfo } from './probe.js';
export type { Mp4Info } from './mp4.js';

export { MediaError, MediaInputError } from './errors.js';
export type { Seed } from './errors.js';

export { configureFfmpeg, ffmpegCapabilities } from './ffmpeg.js';
export { AUDIO_FORMAT_MIME, IMAGE_FORMAT_MIME, convertAudio, convertImage, isAudioFormat } from './convert.js';
export type { AudioFormat, ImageFormat } from './convert.js';
export type { FfmpegCapabilities } from './ffmpeg.js';
