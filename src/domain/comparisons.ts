import type { ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import type { Catalog, CatalogModel, Modality } from '../catalog/index.js';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Wakeup } from '../wakeup.js';
import type { Db } from '../store/db.js';
import type { FileLinks } from '../files/links.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ImageInput, SimulateOptions } from '../providers/types.js';
import { scopeAllows, type Plan, type Principal } from './access.js';
import {
  acceptStatement, claimLost, prepareGeneration, withStoredInputs,
  type AcceptStatementPorts, type AudioInput, type PreparePorts, type StoredInputsPorts,
} from '../generations/accept.js';
import { holdToModel, type HoldPorts } from '../generations/hold-to-model.js';
import { MODALITY_RULES } from '../generations/modalities.js';
import { linkIdempotencyClaim, type IdempotencyClaim } from '../store/idempotency.js';
import { toGenerationView } from '../generations/views.js';
import { selectOutputs, selectComparisonChildren } from '../store/generations.js';
import { insertComparison, selectComparison, type ComparisonRow } from '../store/comparisons.js';
import { retryAfterSettling } from '../billing/credits.js';
import { checkBudgetsOf } from '../billing/budgets.js';
import { verifyAudioUrl } from '../files/audio-input.js';
import { audioFromUpload, resolveImageInput } from '../files/uploads.js';
import { makeAjv, validationError } from '../validation.js';

/** Accepting a comparison: its children are prepared and accepted as generations are. */
export interface CreateComparisonPorts extends PreparePorts, StoredInputsPorts, AcceptStatementPorts {
  db: Db;
  jobsAvailable: Wakeup;
  metrics: Metrics;
}
/** Checking a comparison's request: its models in the catalog, each child held to its model. */
export interface PlanComparisonPorts extends HoldPorts {
  catalog: Catalog;
}
/** Accepting a checked comparison: its input files read (uploads) or fetched, then every child at once. */
export interface SubmitComparisonPorts extends CreateComparisonPorts {
  log: Logger;
}
export interface ComparisonViewPorts {
  db: Db;
  links: FileLinks;
}

/**
 * Comparison glossary
 * - comparison: one prompt sent to several models of one modality at once, to
 *   see them side by side. Its children are ordinary generations, always run
 *   asynchronously, with `comparison_id` set.
 * - width: how many models one comparison may hold, set by the plan.
 * - completed: every child has reached its first terminal state; the
 *   comparison.completed event fires once, then. A child retried later does
 *   not reopen it.
 */
export const MODELS_PER_COMPARISON: Record<Plan, number> = { free: 2, pro: 3, studio: 6, team: 12 };

export interface ComparisonChild {
  model: CatalogModel;
  prompt: string | null;
  params: Record<string, unknown>;
  /** The fields the client sent (the others are defaults), as for a generation of its own. */
  sent?: ReadonlySet<string> | undefined;
}

export function assertPlanWidth(plan: Plan, count: number): void {
  const limit = MODELS_PER_COMPARISON[plan];
  if (count > limit) {
    throw new ApiError('plan_limit_exceeded', `The ${plan} plan compares at most ${limit} models at once; this request has ${count}.`, 'models');
  }
}

/**
 * Creates the comparison and all its children in ONE transaction: every
 * child's credits are reserved, or none are and nothing is created (402).
 */
export async function createComparison(
  deps: CreateComparisonPorts,
  principal: Principal,
  c: { modality: Modality; prompt: string | null; params: Record<string, unknown>; children: ComparisonChild[]; simulate?: SimulateOptions | undefined; image?: ImageInput | undefined; audio?: AudioInput | undefined; claim?: IdempotencyClaim | undefined },
): Promise<ComparisonRow> {
  const id = newId('cmp');
  const prepared = await Promise.all(
    c.children.map((child) =>
      prepareGeneration(deps, principal, {
        modality: c.modality, model: child.model, prompt: child.prompt, params: child.params,
        simulate: c.simulate, cache: false, image: c.image, audio: c.audio, comparisonId: id, sent: child.sent,
      }),
    ),
  );
  const reserved = prepared.reduce((sum, p) => sum + p.price, 0);
  const row = await withStoredInputs(deps, prepared, () => retryAfterSettling(deps.db, principal.organizationId, () => deps.db.tx(async (q) => {
    // Every child's credits count against the budgets at once, checked before anything of the transaction is written.
    await checkBudgetsOf(q, principal, reserved);
    // The Idempotency-Key and the comparison are one fact (store/idempotency.ts), written in this transaction.
    if (c.claim && !(await linkIdempotencyClaim(q, c.claim, id))) throw claimLost();
    const cmp = await insertComparison(q, {
      id, organizationId: principal.organizationId, apiKeyId: principal.keyId, mode: principal.mode, modality: c.modality,
      prompt: c.prompt, models: prepared.map((p) => p.model), params: c.params, reservedCredits: reserved,
    });
    for (const p of prepared) {
      if (!(await acceptStatement(q, deps, p))) {
        throw new ApiError('insufficient_credits', `Insufficient credits: this comparison needs ${reserved} credits for its ${prepared.length} models; nothing was charged.`);
      }
    }
    return cmp;
  })));
  for (const p of prepared) deps.metrics.generationsAccepted.inc({ modality: p.modality, cache_hit: 'false' });
  deps.jobsAvailable.notify();
  return row!;
}

/** A comparison as its route takes it: one prompt, the modality's fields for every model. */
export interface ComparisonAsk {
  models: string[];
  prompt?: string | undefined;
  params: Record<string, unknown>;
  simulate?: SimulateOptions | undefined;
}

/** A comparison checked and each child held to its model: what is screened, then accepted. */
export interface CheckedComparison {
  modality: Modality;
  prompt: string | null;
  /** The comparison's own params, as sent (shown on it). */
  params: Record<string, unknown>;
  simulate?: SimulateOptions | undefined;
  children: ComparisonChild[];
  /** The fields every child shares (inputs among them), as validated. */
  shared: Record<string, unknown>;
  /** The text held to the moderation policy, and the field a refusal names. */
  screened: string | null;
  screenParam: string;
}

/** Errors about an input name the field where a comparison has it: params.upload_id, params.image_url, params.audio_url. */
async function inParams<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ApiError && err.param !== undefined && !err.param.startsWith('params.')) {
      throw Object.assign(new ApiError(err.code, err.message, `params.${err.param}`), { headers: err.headers });
    }
    throw err;
  }
}

/** Where a comparison's one prompt goes in its modality's request (the modality's prompt field). */
function withPrompt(modality: Modality, prompt: string | undefined, fields: Record<string, unknown>): Record<string, unknown> {
  if (prompt === undefined) return fields;
  const at = MODALITY_RULES[modality].request.prompt;
  if (!at) throw new ApiError('parameter_invalid', `Comparisons of ${modality} models take no prompt; give params.upload_id or params.image_url.`, 'prompt');
  return { [at.field]: at.place ? at.place(prompt) : prompt, ...fields };
}

const validators = new Map<Modality, ValidateFunction>();
// Made on first use: most processes never validate a comparison child.
let ajv: ReturnType<typeof makeAjv> | undefined;

/** Validates one child's request exactly as the modality's own endpoint would; errors name `params.…`. */
function validateChild(modality: Modality, body: Record<string, unknown>): Record<string, unknown> {
  const request = MODALITY_RULES[modality].request;
  let validate = validators.get(modality);
  if (!validate) {
    ajv ??= makeAjv(false);
    validate = ajv.compile(request.schema);
    validators.set(modality, validate);
  }
  const copy = structuredClone(body);
  if (!validate(copy)) {
    const err = validationError(validate.errors ?? [], 'body');
    const param = err.param === undefined || err.param === 'model' || err.param === 'prompt' ? err.param : `params.${err.param}`;
    throw new ApiError(err.code, err.message.replace(err.param ?? '\u0000', param ?? ''), param);
  }
  request.check?.(copy);
  return copy;
}

/**
 * A comparison's request checked in the contract's order before anything is fetched or reserved: its models exist
 * and are listed (404/410), serve one modality and are distinct (400), the key has that modality's scope and the
 * plan its width (403); then the modality's fields are validated as its own endpoint would (400 naming
 * `params.…`) and each child is held to its own model's parameters and routes, with that model's defaults (§3a).
 */
export function checkComparison(deps: PlanComparisonPorts, principal: Principal, ask: ComparisonAsk): CheckedComparison {
  const { params } = ask;
  if ('model' in params) throw new ApiError('parameter_invalid', 'Name the models in `models`, not in params.', 'params.model');
  const models: CatalogModel[] = ask.models.map((name, i) => {
    const m = deps.catalog.find(name);
    if (!m) throw new ApiError('model_not_found', `No such model: '${name}'.`, `models[${i}]`);
    if (m.status === 'delisted') throw new ApiError('model_unavailable', `The model '${m.slug}' has been delisted.`, `models[${i}]`);
    return m;
  });
  const modality = models[0]!.modality;
  if (models.some((m) => m.modality !== modality)) {
    throw new ApiError('parameter_invalid', `A comparison compares models of one modality; these serve ${[...new Set(models.map((m) => m.modality))].join(', ')}.`, 'models');
  }
  if (new Set(models.map((m) => m.slug)).size !== models.length) {
    throw new ApiError('parameter_invalid', 'The models must be distinct.', 'models');
  }
  const request = MODALITY_RULES[modality].request;
  if (!scopeAllows(principal.scopes, request.scope)) throw new ApiError('insufficient_role', `This key lacks the '${request.scope}' scope.`);
  assertPlanWidth(principal.plan, models.length);

  const asRequest = withPrompt(modality, ask.prompt, { model: models[0]!.slug, ...params });
  const fields = validateChild(modality, asRequest);
  const { model: _m, ...shared } = fields;
  const sent = new Set(Object.keys(asRequest));
  const fromPrompt = new Set(Object.keys(asRequest).filter((f) => !(f in params)));
  const nameIn = (i: number) => (f: string) => (f === 'model' ? `models[${i}]` : fromPrompt.has(f) ? 'prompt' : `params.${f}`);
  const children = models.map((m, i) => {
    const child: Record<string, unknown> = { ...fields, model: m.slug };
    holdToModel(deps, principal, m, child, sent, nameIn(i));
    deps.catalog.admit(m, principal.organizationId, `models[${i}]`);
    const { model: _model, ...own } = child;
    return { model: m, prompt: request.prompt?.of(child) ?? null, params: own, sent };
  });
  const screened = request.prompt ? (request.prompt.screened ?? request.prompt.of)(fields) : null;
  return {
    modality, prompt: ask.prompt ?? null, params, simulate: ask.simulate, children, shared,
    screened, screenParam: nameIn(0)(request.prompt?.field ?? 'prompt'),
  };
}

/** Accepts a checked comparison: its input image or audio read or fetched (errors name `params.…`), then every child at once. */
export async function submitComparison(deps: SubmitComparisonPorts, principal: Principal, c: CheckedComparison, claim?: IdempotencyClaim): Promise<ComparisonRow> {
  const { shared } = c;
  if (MODALITY_RULES[c.modality].request.image === 'required' && shared.upload_id === undefined && shared.image_url === undefined) {
    throw new ApiError('parameter_missing', 'These models need an input image: params.upload_id or params.image_url.', 'params.upload_id');
  }
  const image =
    shared.upload_id !== undefined || shared.image_url !== undefined
      ? await inParams(resolveImageInput(deps, principal, { upload_id: shared.upload_id as string | undefined, image_url: shared.image_url as string | undefined }))
      : undefined;
  if (typeof shared.audio_url === 'string') await inParams(verifyAudioUrl(deps, shared.audio_url));
  const audio = typeof shared.audio_upload_id === 'string' ? await inParams(audioFromUpload(deps, principal, shared.audio_upload_id)) : undefined;
  return createComparison(deps, principal, { modality: c.modality, prompt: c.prompt, params: c.params, simulate: c.simulate, image, audio, children: c.children, claim });
}

export async function comparisonView(deps: ComparisonViewPorts, principal: Principal, id: string): Promise<Record<string, unknown>> {
  const cmp = await selectComparison(deps.db, id, principal.organizationId, principal.mode);
  if (!cmp) throw notFound('comparison', id);
  const children = await selectComparisonChildren(deps.db, id);
  const outputs = await selectOutputs(deps.db, children.map((g) => g.id));
  const status = cmp.remaining === 0 ? 'completed' : children.some((g) => g.status !== 'queued') ? 'running' : 'queued';
  return {
    id: cmp.id,
    object: 'comparison',
    status,
    modality: cmp.modality,
    prompt: cmp.prompt,
    models: cmp.models,
    generations: await Promise.all(children.map((g) => toGenerationView(g, outputs.get(g.id) ?? [], deps.links))),
    reserved_credits: Number(cmp.reserved_credits),
    created_at: cmp.created_at.toISOString(),
    completed_at: cmp.completed_at ? cmp.completed_at.toISOString() : null,
  };
}
