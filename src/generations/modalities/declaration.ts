import type { Static, TObject } from '@sinclair/typebox';
import type { Decimal } from 'decimal.js';
import type { Scope } from '../../domain/access.js';

/** What a finished attempt produced, as pricing reads it. */
export interface ProducedWork {
  outputs: Array<{ type: string; duration_s?: string | null }>;
  outputTokens?: number | undefined;
}

/** Where a modality's request carries its prompt. */
export interface PromptField<B> {
  /** The request field the prompt is in: a refusal of the prompt names it. */
  field: string;
  /** The text stored as the generation's `prompt`. */
  of(body: B): string | null;
  /** The text held to the moderation policy, when it is more than the prompt (a chat's every user turn). */
  screened?(body: B): string | null;
  /** The field's value for a comparison's one prompt, when it is not the text itself. */
  place?(prompt: string): unknown;
}

/** What a modality's request is: its fields (the HTTP contract and the OpenAPI document) and the rules around them. */
export interface ModalityRequest<S extends TObject = TObject> {
  schema: S;
  /** The write scope a key needs for this modality. */
  scope: Scope;
  /** Whether the request may or must carry an input image (upload_id or image_url). */
  image?: 'optional' | 'required';
  /** null: the modality takes no prompt (an upscale). */
  prompt: PromptField<Static<S>> | null;
  /** Cross-field rules the schema cannot say (one of two fields, …). */
  check?(body: Static<S>): void;
}

/**
 * One modality, declared in one place (generations/modalities/<modality>.ts): its request, and what differs in how
 * it is accepted, priced, run and shown. Read by acceptance, pricing, the runner's outputs, comparisons and the
 * generation view through MODALITY_RULES (generations/modalities.ts).
 */
export interface ModalityDeclaration<S extends TObject = TObject> {
  request: ModalityRequest<S>;
  /** Answered in the request (200 with the finished generation) rather than queued (202). */
  sync: boolean;
  /** The billable units a request asks for (contract §4): what is reserved. */
  requestedUnits(params: Record<string, unknown>): Decimal;
  /** The units a finished attempt produced, when they differ from those requested; undefined charges what was requested. */
  producedUnits?(produced: ProducedWork): Decimal | undefined;
  /** What happens to the provider's files before they are stored. */
  outputs: {
    /** Resized to exactly input × scale (the provider's upscale may differ by a few pixels). */
    fitToScale?: boolean;
    /** A poster frame is made from the video when the provider sent none. */
    thumbnailFromVideo?: boolean;
    /** The outputs are one work (a file and its thumbnail): they share one moderation verdict, the strictest. */
    oneWork?: boolean;
    /**
     * Images or videos (or a thumbnail) the image classifiers judge. A synchronous request of such a modality is
     * refused (503, Retry-After) while the classifiers' backlog is full; an asynchronous one waits in its queue.
     */
    classified?: boolean;
  };
  /** The reply (message, usage) is part of the generation's view. */
  replyInView?: boolean;
  /** The provider call may start alongside the reservation (early-dispatch.ts). */
  earlyDispatch?: boolean;
}
