import type { ProviderName } from '../../src/catalog/index.js';
import { shippedRecordsOf } from '../../src/providers/upstream-models.js';
import type { UpstreamModelRecord } from '../../src/providers/upstream-record.js';

/**
 * What a fake lists as its provider's models today (`GET /v1/models` and its kin; `mmgen catalog sync`), seeded
 * from the records, so that by default the list agrees with them: every record listed, with the deprecation and
 * shutdown dates it carries. A test changes it as an upstream would: `add` a model mmgen has no record of (with
 * the input schema it publishes, where the provider publishes one), `remove` one, `deprecate` one. A schema's
 * drift is the fake's own `drifted` (Replicate, fal).
 */
export interface ListedState {
  id: string;
  /** Unix seconds; a seeded model's is a fixed day in its seeding order, an added one's now. */
  created: number;
  status: 'active' | 'deprecated' | 'retired';
  deprecated: string | null;
  shutdown: string | null;
  /** The input schema published for a model added without a record. */
  input?: UpstreamModelRecord['input'];
  /** The other schemas its OpenAPI document publishes beside the input (`components.schemas`), which it may `$ref`. */
  components?: Record<string, unknown>;
}

const SEEDED_FROM = Date.UTC(2025, 0, 1) / 1000;

function statusOf(record: UpstreamModelRecord, today: string): ListedState['status'] {
  const { deprecated, shutdown } = record.lifecycle;
  if (shutdown !== null && shutdown <= today) return 'retired';
  return deprecated !== null || shutdown !== null ? 'deprecated' : 'active';
}

export class UpstreamListing {
  private models: Map<string, ListedState> | undefined;

  /** `covers`: the records this provider's list holds (ElevenLabs lists no music model). */
  constructor(
    private readonly provider: ProviderName,
    private readonly covers: (record: UpstreamModelRecord) => boolean = () => true,
  ) {}

  private state(): Map<string, ListedState> {
    if (!this.models) {
      const today = new Date().toISOString().slice(0, 10);
      const records = [...shippedRecordsOf(this.provider).values()].filter(this.covers);
      this.models = new Map(
        records.map((r, i) => [
          r.upstream,
          { id: r.upstream, created: SEEDED_FROM + i * 86_400, status: statusOf(r, today), deprecated: r.lifecycle.deprecated, shutdown: r.lifecycle.shutdown },
        ]),
      );
    }
    return this.models;
  }

  /** Every listed model, in the order listed (seeded, then added). */
  all(): ListedState[] {
    return [...this.state().values()];
  }

  get(id: string): ListedState | undefined {
    return this.state().get(id);
  }

  /**
   * The schema a model released upstream (`add`) is judged by: its input, its `$ref`s resolved against the document's
   * components as the provider's own validation resolves them; undefined for a model without one, or removed.
   */
  judgedBy(id: string): object | undefined {
    const m = this.state().get(id);
    if (!m?.input) return undefined;
    return m.components ? { ...m.input, components: { schemas: m.components } } : m.input;
  }

  /** Whether a model the records know was removed upstream (its schema and its page then answer 404). */
  removed(id: string): boolean {
    return !this.state().has(id) && shippedRecordsOf(this.provider).has(id);
  }

  /** A model released upstream today, with the input schema it publishes. */
  add(id: string, opts: { input?: UpstreamModelRecord['input']; components?: Record<string, unknown>; status?: ListedState['status'] } = {}): void {
    this.state().set(id, {
      id, created: Math.floor(Date.now() / 1000), status: opts.status ?? 'active', deprecated: null, shutdown: null,
      ...(opts.input ? { input: opts.input } : {}), ...(opts.components ? { components: opts.components } : {}),
    });
  }

  remove(id: string): void {
    this.state().delete(id);
  }

  /** The provider announces a deprecation: a status, and the dates it publishes (none: a status only, as fal's). */
  deprecate(id: string, dates: { deprecated?: string; shutdown?: string; status?: 'deprecated' | 'retired' } = {}): void {
    const m = this.state().get(id);
    if (!m) throw new Error(`${this.provider} lists no model ${id}`);
    m.status = dates.status ?? 'deprecated';
    if (dates.deprecated) m.deprecated = dates.deprecated;
    if (dates.shutdown) m.shutdown = dates.shutdown;
  }

  /** Back to the records. */
  reset(): void {
    this.models = undefined;
  }
}
