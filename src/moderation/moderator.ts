import { probeAudioVideo, videoFrames } from '../media/index.js';
import type { ModerationPolicy } from './policy.js';
import type { ImageClassifier, Scores, TextClassifier } from './types.js';
import { verdictOf, verdictOfScores, worst, type Verdict } from './verdict.js';

/** A generated file as moderation sees it. */
export interface ModeratedFile {
  bytes: Buffer;
  mime: string;
  type: string;
  duration_s?: string | null;
  /** The provider's own safety signal, where it gives one (fal's has_nsfw_concepts). */
  moderation?: Verdict | undefined;
  /** Drawn by the simulator from the request's words (UpstreamOutput.synthetic): scored, but the scores do not decide. */
  synthetic?: boolean | undefined;
}

/** A file's verdict and the scores it came from (the highest per category over the classifiers and frames). */
export interface FileVerdict {
  verdict: Verdict;
  scores: Scores;
  /**
   * A synthetic file the classifiers' scores alone would have blocked or flagged under the policy: the verdict the
   * same bytes would get from a real provider, kept so that it is logged (a false positive seen in the wild).
   */
  overruled?: Verdict;
}

/** Stills of a video looked at: several, spread over it, not only its poster (a few seconds can hide anything). */
export const VIDEO_FRAMES = 4;

function merge(into: Scores, more: Scores): Scores {
  for (const [k, v] of Object.entries(more) as Array<[keyof Scores, number]>) into[k] = Math.max(into[k] ?? 0, v);
  return into;
}

/**
 * The verdict stage of every generation (contract §11), between the
 * provider's files and their being stored and served. Images, upscales and
 * thumbnails are classified as they are, videos and avatars by stills spread
 * over them; a 3D mesh is judged by its thumbnail; audio by the provider's
 * signal only (no classifier of sound). The outputs of one video, avatar or
 * mesh (the file and its thumbnail) share the strictest verdict of them.
 * The simulator's own renders (`synthetic`) are classified too, but only a
 * forced verdict or a provider signal can act on them.
 */
export class Moderator {
  constructor(
    private readonly classifiers: readonly ImageClassifier[],
    private readonly opts: {
      videoFrames?: number;
      text?: TextClassifier | undefined;
      close?: () => Promise<void>;
      /** Seconds until the classifiers' backlog is likely through while it is full; null while it is not. */
      saturated?: () => number | null;
    } = {},
  ) {}

  /**
   * While the image classifiers' backlog is full, the seconds a new synchronous image request should wait before it
   * tries again (it is refused with 503 before anything is reserved: accept-request.ts); null while it is not full.
   */
  saturated(): number | null {
    return this.opts.saturated?.() ?? null;
  }

  /** Stops the classifiers' work (the local model's worker threads, once the images they took are judged), on shutdown. */
  close(): Promise<void> {
    return this.opts.close?.() ?? Promise.resolve();
  }

  /** The hosted classifier prompts are screened by, when the operator configured one. */
  get text(): TextClassifier | undefined {
    return this.opts.text;
  }

  /** Whether any classifier runs (off: only provider signals and forced verdicts decide). */
  get classifies(): boolean {
    return this.classifiers.length > 0;
  }

  async scoreImage(bytes: Buffer): Promise<Scores> {
    const scores: Scores = {};
    for (const c of this.classifiers) merge(scores, await c.classify(bytes));
    return scores;
  }

  private async scoreVideo(file: ModeratedFile): Promise<Scores> {
    const duration = Number(file.duration_s) || (await probeAudioVideo(file.bytes)).durationS || 0;
    const stills = await videoFrames(file.bytes, this.opts.videoFrames ?? VIDEO_FRAMES, duration);
    // A video no still can be taken from is not waved through: it is scored as unknown content (1), so the policy acts.
    if (stills.length === 0) return { sexual: 1 };
    const scores: Scores = {};
    for (const still of stills) merge(scores, await this.scoreImage(still));
    return scores;
  }

  private async scoresOf(file: ModeratedFile): Promise<Scores | undefined> {
    if (!this.classifies) return undefined;
    if (file.type === 'image' || file.type === 'thumbnail') return this.scoreImage(file.bytes);
    if (file.type === 'video') return this.scoreVideo(file);
    return undefined;
  }

  /** The verdict of each file, in order. `forced` (simulate.moderation) decides alone; a synthetic file's scores never decide. */
  async judge(policy: ModerationPolicy, files: readonly ModeratedFile[], opts: { forced?: Verdict | undefined; shared: boolean }): Promise<FileVerdict[]> {
    const judged: FileVerdict[] = [];
    for (const file of files) {
      // A synthetic file is scored all the same: test mode runs the pipeline live traffic does, at its cost.
      const scores = opts.forced ? undefined : await this.scoresOf(file);
      const verdict = verdictOf(policy, { scores, provider: file.moderation, forced: opts.forced, synthetic: file.synthetic });
      const byScores = file.synthetic ? verdictOfScores(policy, scores) : 'approved';
      judged.push({ verdict, scores: scores ?? {}, ...(byScores !== 'approved' ? { overruled: byScores } : {}) });
    }
    if (opts.shared && judged.length > 1) {
      const strictest = worst(...judged.map((j) => j.verdict));
      for (const j of judged) j.verdict = strictest;
    }
    return judged;
  }
}
