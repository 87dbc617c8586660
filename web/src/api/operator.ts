import type { JsonSchema } from '../lib/schema.js';
import { Api } from './client.js';

/**
 * The instance operator's side of the dashboard: the admin API (`/v1/admin/…`) with the operator credential
 * (MMGEN_ADMIN_TOKEN) as its bearer token. The token is kept in memory only (this module's caller's state): it
 * opens every organization's catalog, prices and access, so a reload or another tab asks for it again rather than
 * leaving it in storage any script of the origin could read later.
 */
export interface AdminModel {
  slug: string;
  source: 'shipped' | 'override' | 'added';
  facts: Record<string, 'shipped' | 'operator'>;
  definition: {
    slug: string;
    display_name: string;
    modality: string;
    routes: Array<{ provider: string; upstream: string }>;
    capabilities: string[];
    unit_cost_usd: string;
    aliases?: string[];
  };
  status: string;
  disabled: boolean;
  margin_percent: string | null;
  effective_margin_percent: string | null;
}

export interface AdminCatalog {
  version: number;
  margin_percent: string | null;
  data: AdminModel[];
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export interface ModelAccess {
  organization_id: string;
  mode: string;
  models: string[];
}

interface AdminDoc {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

/** The request schemas of the admin API's operations, by operationId, from its own OpenAPI document. */
export class AdminSpec {
  private readonly bodies = new Map<string, JsonSchema>();
  constructor(doc: AdminDoc) {
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (op.operationId && schema) this.bodies.set(op.operationId, schema);
      }
    }
  }

  body(operationId: string): JsonSchema | undefined {
    return this.bodies.get(operationId);
  }

  /** A field of an operation's body. */
  field(operationId: string, name: string): JsonSchema | undefined {
    return this.body(operationId)?.properties?.[name];
  }
}

/** Opens an operator session: the token is checked by reading the catalog, and the admin document is read with it. */
export async function openOperator(token: string): Promise<{ api: Api; spec: AdminSpec; catalog: AdminCatalog }> {
  const api = new Api(token);
  const [catalog, doc] = await Promise.all([api.get<AdminCatalog>('/v1/admin/models'), api.get<AdminDoc>('/v1/admin/openapi.json')]);
  return { api, spec: new AdminSpec(doc), catalog };
}
