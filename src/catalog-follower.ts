import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Logger } from 'pino';
import { ModelDefinition, type Catalog, type CatalogOverlay } from './catalog/index.js';
import { recordProblem, type RecordsOverlay, type UpstreamModelRecord } from './providers/upstream-record.js';
import { catalogVersion, readOverlay } from './store/catalog.js';
import type { Db } from './store/db.js';

/** How often a node looks at the catalog's version: a change reaches every node within about this long. */
export const CATALOG_POLL_MS = 1000;

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validDefinition = ajv.compile<ModelDefinition>(ModelDefinition);

/**
 * Keeps this runtime's catalog and upstream records equal to the shipped catalog with the operator's changes
 * (store/catalog.ts) laid over it. It reads one row a second (catalog_state.version) and reloads the overlay only
 * when the version moved, so the request path never queries for the catalog: the Catalog swaps its state whole.
 * A row that does not hold (written by a newer mmgen, or edited by hand) is logged and left out, never taking the
 * catalog down with it.
 */
export class CatalogFollower {
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly deps: { db: Db; catalog: Catalog; records: RecordsOverlay; log: Logger },
    /** The registered providers' names: a route or record naming another is left out. */
    private readonly providers: readonly string[],
    private readonly pollMs = CATALOG_POLL_MS,
  ) {}

  /** Loads the overlay now (at start, and after this process wrote a change), then follows the version. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reloads the overlay (one load at a time; a call during a load waits for it, then loads again). */
  async refresh(): Promise<void> {
    const previous = this.loading;
    const next = (async () => {
      await previous?.catch(() => {});
      await this.load();
    })();
    this.loading = next;
    try {
      await next;
    } finally {
      if (this.loading === next) this.loading = null;
    }
  }

  private async poll(): Promise<void> {
    try {
      if (this.loading) return;
      if ((await catalogVersion(this.deps.db)) !== this.deps.catalog.version) await this.refresh();
    } catch (err) {
      this.deps.log.warn({ err }, 'could not follow the catalog');
    }
  }

  private async load(): Promise<void> {
    const { overlay, records } = await this.deps.db.tx((q) => readOverlay(q));
    const registered = new Set(this.providers);
    const byProvider = new Map<string, Map<string, UpstreamModelRecord>>();
    for (const r of records) {
      const problem = recordProblem(r.record);
      if (!registered.has(r.provider) || problem) {
        this.deps.log.error({ provider: r.provider, upstream: r.upstream, problem }, 'an operator record is left out');
        continue;
      }
      const provider = byProvider.get(r.provider) ?? new Map<string, UpstreamModelRecord>();
      provider.set(r.upstream, r.record as UpstreamModelRecord);
      byProvider.set(r.provider, provider);
    }
    const models: Array<CatalogOverlay['models'][number]> = [];
    for (const row of overlay.models) {
      let definition: ModelDefinition | null = null;
      if (row.definition !== null) {
        if (!validDefinition(row.definition) || row.definition.routes.some((r) => !registered.has(r.provider))) {
          this.deps.log.error({ slug: row.slug, problem: ajv.errorsText(validDefinition.errors) }, "an operator's model definition is left out");
          continue;
        }
        definition = row.definition;
      }
      models.push({ slug: row.slug, definition, disabled: row.disabled, marginPercent: decimalText(row.margin_percent) });
    }
    // Records first: the catalog's lifecycle and parameters read the routes' records as soon as it is swapped.
    this.deps.records.replace(byProvider);
    this.deps.catalog.replace({ ...overlay, marginPercent: decimalText(overlay.marginPercent), models });
  }
}

/** A numeric column as a decimal string, whichever way the driver hands it over. */
function decimalText(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
