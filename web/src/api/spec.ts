import type { JsonSchema } from '../lib/schema.js';
import type { ApiKey, Modality, Role } from './types.js';
import { ROLES } from './types.js';

/** What /v1/openapi.json says one operation needs (x-mmgen-role, x-mmgen-scope, x-mmgen-consumes-credits). */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  role?: Role;
  scope?: string;
  consumesCredits: boolean;
  requestSchema?: JsonSchema;
}

/** A modality's endpoint as the server declares it (`x-mmgen-modality` on its operation). */
export interface ModalityEndpoint {
  modality: Modality;
  path: string;
  operationId: string;
  /** Answers with the finished generation (200) rather than a queued one (202). */
  sync: boolean;
  /** The request field a comparison's prompt goes to; null: the modality takes none. */
  promptField: string | null;
  /** Whether requests take an input image (upload_id / image_url). */
  image: 'none' | 'optional' | 'required';
  requestSchema?: JsonSchema;
}

interface RawOperation {
  operationId: string;
  'x-mmgen-modality'?: { modality: Modality; sync: boolean; prompt_field: string | null; image: 'none' | 'optional' | 'required' };
  'x-mmgen-role'?: Role;
  'x-mmgen-scope'?: string;
  'x-mmgen-consumes-credits'?: boolean;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDoc {
  info: { version: string };
  paths: Record<string, Record<string, RawOperation>>;
}

/** The API's own description of itself: the dashboard takes permissions, request schemas and each modality's endpoint from it. */
export class ApiSpec {
  readonly version: string;
  private readonly byId = new Map<string, Operation>();
  private readonly byRoute = new Map<string, Operation>();
  private readonly byModality = new Map<Modality, ModalityEndpoint>();

  constructor(doc: OpenApiDoc) {
    this.version = doc.info.version;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, raw] of Object.entries(ops)) {
        const op: Operation = {
          operationId: raw.operationId,
          method: method.toUpperCase(),
          path,
          consumesCredits: raw['x-mmgen-consumes-credits'] === true,
          ...(raw['x-mmgen-role'] ? { role: raw['x-mmgen-role'] } : {}),
          ...(raw['x-mmgen-scope'] ? { scope: raw['x-mmgen-scope'] } : {}),
          ...(raw.requestBody?.content?.['application/json']?.schema ? { requestSchema: raw.requestBody.content['application/json'].schema } : {}),
        };
        this.byId.set(op.operationId, op);
        this.byRoute.set(`${op.method} ${path}`, op);
        const m = raw['x-mmgen-modality'];
        if (m) {
          this.byModality.set(m.modality, {
            modality: m.modality, path, operationId: op.operationId, sync: m.sync, promptField: m.prompt_field, image: m.image,
            ...(op.requestSchema ? { requestSchema: op.requestSchema } : {}),
          });
        }
      }
    }
  }

  op(operationId: string): Operation | undefined {
    return this.byId.get(operationId);
  }

  route(method: string, path: string): Operation | undefined {
    return this.byRoute.get(`${method} ${path}`);
  }

  /** A modality's endpoint (path, sync, prompt field, image rule), as the server declares it. */
  modality(modality: Modality): ModalityEndpoint | undefined {
    return this.byModality.get(modality);
  }
}

export interface Permission {
  ok: boolean;
  /** Why not, in words a user can act on. */
  reason?: string;
}

/** Whether a key may call an operation: its role, its scopes, and a paused organization. */
export function permission(op: Operation | undefined, key: ApiKey, paused: boolean): Permission {
  if (!op) return { ok: false, reason: 'This server does not offer this operation.' };
  if (op.role && ROLES.indexOf(key.role) < ROLES.indexOf(op.role)) {
    return { ok: false, reason: `Needs the ${op.role} role; this key is ${key.role === 'admin' || key.role === 'owner' ? 'an' : 'a'} ${key.role}.` };
  }
  if (op.scope && key.scopes.length > 0 && !key.scopes.includes(op.scope)) {
    return { ok: false, reason: `Needs the ${op.scope} scope, which this key lacks.` };
  }
  if (op.consumesCredits && paused) {
    return { ok: false, reason: 'The organization is paused by the spending anomaly detector.' };
  }
  return { ok: true };
}
