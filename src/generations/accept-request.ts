import type { Catalog, CatalogModel, Modality } from '../catalog/index.js';
import type { Db } from '../store/db.js';
import type { IdempotencyClaim } from '../store/idempotency.js';
import type { Moderator } from '../moderation/moderator.js';
import type { PolicyCache } from '../moderation/policy.js';
import type { Tracing } from '../tracing.js';
import { ModerationUnavailableError, screenPrompt } from '../moderation/prompt-screen.js';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/access.js';
import { checkComparison, submitComparison, type ComparisonAsk, type PlanComparisonPorts, type SubmitComparisonPorts } from '../domain/comparisons.js';
import { submitGeneration, type SubmitPorts } from './accept.js';
import type { EarlyDispatch } from './early-dispatch.js';
import { holdToModel, type HoldPorts, type ParamName } from './hold-to-model.js';
import { MODALITY_RULES } from './modalities.js';
import { resumedGeneration, type ResumePorts } from './resume.js';
import type { GenerationRow } from './views.js';

/** The request's Idempotency-Key claim, and the generation or comparison an earlier request with it accepted before it died. */
export interface RequestClaim extends IdempotencyClaim {
  resume: string | null;
}

/** One generation as a route has shaped it: mmgen's fields of its modality (model, simulate and cache among them). */
export interface GenerationAsk {
  kind: 'generation';
  modality: Modality;
  body: Record<string, unknown>;
  /** The fields the client sent (the model's defaults fill the rest); null: all of them count as sent. */
  sent: ReadonlySet<string> | null;
  /** The request's Idempotency-Key claim: it names the generation accepted, or one accepted before (`resume`). */
  claim?: RequestClaim | undefined;
  /** How the route names a field in its errors, when its shape differs from mmgen's (a compatible path). */
  paramName?: ParamName | undefined;
  /**
   * A compatible API's fields beyond the modality's request (a chat's top_p, stop, user): not held to the model's
   * parameters, and passed on to the adapter, which sends those the model's record maps. The request then goes
   * upstream as the client sent it: the model's defaults are checked against, not added.
   */
  extra?: Record<string, unknown> | undefined;
  /** A provider call that may start alongside the reservation (early-dispatch.ts). */
  early?: EarlyDispatch | undefined;
  /** Runs once the request is held to its model and its prompt screened, before anything is reserved. */
  beforeSubmit?: (() => Promise<void>) | undefined;
}

/** A comparison as its route takes it (domain/comparisons.ts). */
export interface ComparisonRequestAsk extends ComparisonAsk {
  kind: 'comparison';
  claim?: RequestClaim | undefined;
}

/** What screening a prompt reaches: the organization's policy and the hosted classifier. */
export interface ScreenPorts {
  db: Db;
  moderator: Moderator;
  policies: PolicyCache;
  tracing: Tracing;
}

/** Everything accepting a request reaches, a generation's or a comparison's: the union of the steps' ports. */
export interface AcceptRequestPorts extends SubmitPorts, SubmitComparisonPorts, PlanComparisonPorts, HoldPorts, ScreenPorts, ResumePorts {
  catalog: Catalog;
}

/** The generation accepted, or the one an earlier request with the same Idempotency-Key accepted (`resume`: its id). */
export interface AcceptedGeneration {
  g: GenerationRow;
  resume: string | null;
  /**
   * The model the request was held to (resolved once, here); resumed, the catalog's entry for the generation's model,
   * null if the catalog no longer has it. What the answer says of the model (its deprecation) is taken from it.
   */
  model: CatalogModel | null;
}
export interface AcceptedComparison {
  comparisonId: string;
  resume: string | null;
}

/**
 * A prompt held to the organization's moderation policy before anything is reserved (contract §11): its blocklist,
 * the profanity filter, and the hosted classifier when one is configured. 400 content_policy_violation names the
 * rule, never echoing the prompt; a hosted classifier that cannot answer is 503 (the prompt is not let through).
 */
async function screenRequestPrompt(deps: ScreenPorts, principal: Principal, text: string | null, param: string): Promise<void> {
  if (!text) return;
  // The prompt's length only: the prompt itself never goes into a span.
  await deps.tracing.span('mmgen.moderation.prompt', { 'mmgen.prompt.chars': text.length, 'mmgen.moderation.hosted': deps.moderator.text !== undefined }, () =>
    screenedPrompt(deps, principal, text, param),
  );
}

async function screenedPrompt(deps: ScreenPorts, principal: Principal, text: string, param: string): Promise<void> {
  const policy = await deps.policies.get(deps.db, principal.organizationId);
  let verdict;
  try {
    verdict = await screenPrompt(text, { blocklist: policy.prompt_blocklist, hosted: deps.moderator.text, threshold: policy.threshold });
  } catch (err) {
    if (err instanceof ModerationUnavailableError) {
      throw new ApiError('service_unavailable', 'The moderation service that screens prompts did not answer; nothing was reserved. Try again shortly.').withHeader('Retry-After', '5');
    }
    throw err;
  }
  if (verdict.refused) throw new ApiError('content_policy_violation', `The organization's moderation policy refuses this prompt: ${verdict.reason}.`, param);
}

/**
 * A synchronous request whose outputs the image classifiers judge is refused while their backlog is full, before its
 * prompt is screened or anything reserved (docs/contract-addenda.md, "Moderation"): the request would otherwise wait
 * behind every image already waiting, with no bound. An asynchronous one waits in its queue instead: the worker takes
 * a bounded number of jobs at a time.
 */
function refuseWhileClassifiersBehind(deps: ScreenPorts, modality: Modality): void {
  const rules = MODALITY_RULES[modality];
  if (!rules.sync || !rules.outputs.classified) return;
  const retryAfterS = deps.moderator.saturated();
  if (retryAfterS === null) return;
  throw new ApiError('service_unavailable', `This node's image moderation is at its backlog; nothing was reserved. Try again in ${retryAfterS} s.`).withHeader('Retry-After', String(retryAfterS));
}

/**
 * A generation's request checked and held to its model (resolved here, once), ready to screen and submit; a quote
 * (quote.ts) stops after it and prices.
 */
export function checkGeneration(deps: HoldPorts & { catalog: Catalog }, principal: Principal, ask: GenerationAsk) {
  const request = MODALITY_RULES[ask.modality].request;
  const name = ask.paramName ?? ((f: string) => f);
  request.check?.(ask.body);
  const model = deps.catalog.resolve(ask.body.model as string, ask.modality, name('model'));
  // A request with fields of another API is held as a copy: it goes upstream as sent (`extra`).
  holdToModel(deps, principal, model, ask.extra ? { ...ask.body } : ask.body, ask.sent, name);
  // The operator's rules last, after the request's own faults (contract §3a's order: 404/410, 400, 403).
  deps.catalog.admit(model, principal.organizationId, name('model'));
  const prompt = request.prompt?.of(ask.body) ?? null;
  return {
    model,
    prompt,
    screened: request.prompt?.screened ? request.prompt.screened(ask.body) : prompt,
    screenParam: name(request.prompt?.field ?? 'prompt'),
  };
}

/**
 * Accepting a request, the one sequence every generation route (the modality endpoints and the compatible paths)
 * and the comparison route go through: an earlier request with this Idempotency-Key that accepted and died is
 * answered from what it accepted (`resume`), never a second time; otherwise the request is checked and held to its
 * model(s) (contract §3a: 404/410, 400, 403 in the contract's order), its prompt screened (§11), and only then is
 * anything fetched, stored or reserved (402), and the generation or comparison accepted.
 */
export async function acceptRequest(deps: AcceptRequestPorts, principal: Principal, ask: GenerationAsk): Promise<AcceptedGeneration>;
export async function acceptRequest(deps: AcceptRequestPorts, principal: Principal, ask: ComparisonRequestAsk): Promise<AcceptedComparison>;
export async function acceptRequest(
  deps: AcceptRequestPorts,
  principal: Principal,
  ask: GenerationAsk | ComparisonRequestAsk,
): Promise<AcceptedGeneration | AcceptedComparison> {
  const claim = ask.claim;
  const resume = claim?.resume ?? null;
  if (ask.kind === 'comparison') {
    if (resume) return { comparisonId: resume, resume };
    return deps.tracing.span('mmgen.accept', { 'mmgen.comparison': true }, async (span) => {
      const checked = checkComparison(deps, principal, ask);
      await screenRequestPrompt(deps, principal, checked.screened, checked.screenParam);
      const cmp = await submitComparison(deps, principal, checked, claim);
      span.set({ 'mmgen.comparison.id': cmp.id });
      // Its children's runs link back here (by the comparison's id: the worker's span looks it up).
      deps.tracing.noteOrigin(cmp.id);
      return { comparisonId: cmp.id, resume: null };
    });
  }
  if (resume) {
    const g = await resumedGeneration(deps, principal, resume, { untilTerminal: false });
    return { g, resume, model: deps.catalog.find(g.model) ?? null };
  }
  return deps.tracing.span('mmgen.accept', { 'mmgen.modality': ask.modality }, async (span) => {
    const checked = checkGeneration(deps, principal, ask);
    span.set({ 'mmgen.model': checked.model.slug });
    refuseWhileClassifiersBehind(deps, ask.modality);
    await screenRequestPrompt(deps, principal, checked.screened, checked.screenParam);
    await ask.beforeSubmit?.();
    const body = ask.extra ? { ...ask.body, ...ask.extra } : ask.body;
    const sent = ask.extra || !ask.sent ? {} : { sent: ask.sent };
    const g = await submitGeneration(deps, principal, checked.model, body, checked.prompt, MODALITY_RULES[ask.modality].request.image, { claim, early: ask.early, ...sent });
    span.set({ 'mmgen.generation.id': g.id, 'mmgen.generation.sync': g.sync, 'mmgen.credits.reserved': g.reserved_credits });
    // A queued generation's run (the worker's span) links back to the request that accepted it.
    deps.tracing.noteOrigin(g.id);
    return { g, resume: null, model: checked.model };
  });
}
