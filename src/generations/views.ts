import { extensionForMime } from '../media/index.js';
import type { FileLinks } from '../files/links.js';
import { MODALITY_RULES } from './modalities.js';
import type { GenerationRow, GenerationStatus, OutputRow } from '../store/generations.js';

export type { GenerationRow, GenerationStatus, OutputRow } from '../store/generations.js';
export type { AttemptEnd, Finishing } from '../billing/statements.js';

/**
 * Generation glossary
 * - generation: one request for one model: its state, money and outputs.
 *   queued → running → succeeded | failed | canceled (the last three are terminal).
 * - sync / async: images, voice and chat answer with the finished generation;
 *   the others answer 202 and finish in a worker. Both run the same runner.
 * - attempt: the first submission is attempt 1; each retry of a failed
 *   generation is the next. Each attempt reserves the price again and settles
 *   once, so `reserved = charged + refunded` on every terminal generation.
 * - price: the reservation of one attempt, from the catalog and the request's
 *   units; the charge is the actual cost, never above it.
 * - output: one produced file, stored in the blob store and served by signed URL.
 */
export const TERMINAL = ['succeeded', 'failed', 'canceled'] as const;

export function isTerminal(status: GenerationStatus): boolean {
  return (TERMINAL as readonly string[]).includes(status);
}

export interface OutputView {
  id: string;
  type: string;
  mime: string;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  url: string;
  moderation_status: string;
}

export function outputFileName(o: Pick<OutputRow, 'id' | 'mime'>): string {
  return `${o.id}.${extensionForMime(o.mime) ?? 'bin'}`;
}

/** `filesExpired`: retention deleted the file (its generation's files_expired_at), so its URL is mmgen's, answering 410. */
export async function toOutputView(o: OutputRow, links: FileLinks, filesExpired = false): Promise<OutputView> {
  return {
    id: o.id,
    type: o.type,
    mime: o.mime,
    width: o.width,
    height: o.height,
    duration_s: o.duration_s,
    url: await links.output({ fileName: outputFileName(o), blobKey: o.blob_key, mime: o.mime, held: o.moderation_status === 'blocked' || o.moderation_status === 'pending', expired: filesExpired }),
    moderation_status: o.moderation_status,
  };
}

export async function toGenerationView(g: GenerationRow, outputs: OutputRow[], links: FileLinks): Promise<Record<string, unknown>> {
  const view: Record<string, unknown> = {
    id: g.id,
    object: 'generation',
    status: g.status,
    modality: g.modality,
    model: g.model,
    prompt: g.prompt,
    params: g.params,
    reserved_credits: g.reserved_credits,
    charged_credits: g.charged_credits,
    refunded_credits: g.refunded_credits,
    price_version: g.price_version ?? null,
    cache_hit: g.cache_hit,
    outputs: await Promise.all(outputs.sort((a, b) => a.position - b.position).map((o) => toOutputView(o, links, g.files_expired_at !== null))),
    error: g.error,
    comparison_id: g.comparison_id,
    livemode: g.mode === 'live',
    created_at: g.created_at.toISOString(),
    completed_at: g.completed_at ? g.completed_at.toISOString() : null,
    prompt_expired_at: g.prompt_expired_at?.toISOString() ?? null,
    files_expired_at: g.files_expired_at?.toISOString() ?? null,
  };
  if (MODALITY_RULES[g.modality].replyInView) {
    view.message = g.result?.message ?? null;
    view.usage = g.result?.usage ?? null;
  }
  return view;
}
