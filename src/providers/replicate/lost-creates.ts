import { isArray, isNonEmptyString, isObject, isString, type UpstreamHttp } from '../http.js';
import { canonicalJson } from '../../canonical-json.js';

/**
 * Finding a prediction whose create answer was lost.
 *
 * Replicate takes no client reference, no idempotency key, and echoes nothing
 * mmgen could mark a prediction with: its prediction object
 * (https://api.replicate.com/openapi.json, `schemas_prediction_response`)
 * carries no `webhook`, and every recorded model input schema refuses a field
 * of mmgen's own. What it does list is each prediction's `model`, `version`,
 * `input` and `created_at` (`GET /v1/predictions`, newest first, 100 a page,
 * `next` as a cursor URL, filtered by `created_after`). So the adapter keeps,
 * for a create whose answer never came, what it sent and when, and recognises
 * that prediction in the list by the same model and the same input.
 *
 * Bounds, all on purpose:
 * - only while this process is up (what was sent is kept in memory, so a
 *   restart or another node finds nothing and mmgen submits again, as before);
 * - only for an hour: Replicate removes an API prediction's input after an
 *   hour, after which there is nothing to recognise;
 * - two pages at most, from a few minutes before the send (clock skew);
 * - exactly one match, and not a prediction this process knows to be another
 *   submission's (answered, or found for another reference): two lost creates
 *   of the same input (or a look-alike from elsewhere) are ambiguous, and mmgen
 *   then submits again rather than adopt a job that may be another's.
 */
const KEEP_MS = 60 * 60 * 1000;
const MAX_KEPT = 1000;
const SKEW_MS = 5 * 60 * 1000;
const MAX_PAGES = 2;
/** Predictions known to be a submission's (answered, or found for it), remembered so a look-alike is never adopted by another. */
const MAX_OWNED = 10_000;

interface Sent {
  /** `owner/name` (an official model) or null (a community model, known by its version). */
  model: string | null;
  version: string | null;
  input: Record<string, unknown>;
  sentAt: number;
  /** The prediction once found: asked again (a later retry), the answer is the same, without listing. */
  found?: string;
}

export class LostCreates {
  private readonly sent = new Map<string, Sent>();
  /** Prediction id → the client reference it belongs to. */
  private readonly owned = new Map<string, string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Before a create is sent: what it is, under its client reference. */
  sending(clientRef: string, what: Pick<Sent, 'model' | 'version' | 'input'>): void {
    this.sent.delete(clientRef);
    this.sent.set(clientRef, { ...what, sentAt: this.now() });
    while (this.sent.size > MAX_KEPT) this.sent.delete(this.sent.keys().next().value!);
  }

  /** The create was answered with an id (nothing to find), or refused before anything started. */
  settled(clientRef: string, id?: string): void {
    this.sent.delete(clientRef);
    if (id) this.own(id, clientRef);
  }

  private own(id: string, clientRef: string): void {
    this.owned.set(id, clientRef);
    while (this.owned.size > MAX_OWNED) this.owned.delete(this.owned.keys().next().value!);
  }

  /** The one listed prediction that is this lost create, or null (not lost here, expired, not found, ambiguous). */
  async find(http: UpstreamHttp, clientRef: string): Promise<string | null> {
    const s = this.sent.get(clientRef);
    if (!s) return null;
    if (s.found) return s.found;
    if (this.now() - s.sentAt > KEEP_MS) {
      this.sent.delete(clientRef);
      return null;
    }
    const matches = new Set<string>();
    let query: Record<string, string | undefined> = { created_after: new Date(s.sentAt - SKEW_MS).toISOString() };
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await http.json({ method: 'GET', path: 'predictions', query, read: true });
      const body = isObject(res.body) ? res.body : {};
      for (const p of isArray(body.results) ? body.results : []) {
        if (!isObject(p) || !isNonEmptyString(p.id)) continue;
        const owner = this.owned.get(p.id);
        if ((owner === undefined || owner === clientRef) && sameCreate(s, p)) matches.add(p.id);
      }
      // The cursor is taken from `next`, but always asked of the configured host.
      if (!isString(body.next) || !body.next) break;
      query = Object.fromEntries(new URL(body.next).searchParams);
    }
    if (matches.size !== 1) return null;
    const id = [...matches][0]!;
    s.found = id;
    this.own(id, clientRef);
    return id;
  }
}

function sameCreate(s: Sent, p: Record<string, unknown>): boolean {
  if (p.source !== undefined && p.source !== 'api') return false;
  if (s.model !== null ? p.model !== s.model : p.version !== s.version) return false;
  return isObject(p.input) && sameInput(s.input, p.input);
}

/**
 * The listed input is the one sent: the same fields with the same values. An
 * input file sent as a data URI may be listed as Replicate stored it (a URL),
 * so such a field only has to be there.
 */
function sameInput(sent: Record<string, unknown>, listed: Record<string, unknown>): boolean {
  const keys = Object.keys(sent);
  if (keys.length !== Object.keys(listed).length) return false;
  return keys.every((k) => {
    const a = sent[k];
    const b = listed[k];
    if (typeof a === 'string' && a.startsWith('data:')) return isString(b);
    return canonicalJson(a) === canonicalJson(b);
  });
}

