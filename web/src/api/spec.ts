import type { JsonSchema } from '../lib/schema.js';
import { ApiError } from './client.js';
import type { Modality, Mode, Role } from './types.js';
import { ROLES } from './types.js';

/** /v1/openapi.json, which is public: read without cookies, signed in or not. */
export async function readApiSpec(): Promise<ApiSpec> {
  const r = await fetch('/v1/openapi.json', { credentials: 'omit' });
  if (!r.ok) throw new ApiError(r.status, 'http_error', 'Could not read /v1/openapi.json.');
  return new ApiSpec((await r.json()) as OpenApiDoc);
}

/** What /v1/openapi.json says one operation needs (x-mmgen-role, x-mmgen-scope, x-mmgen-consumes-credits, x-mmgen-mode). */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  role?: Role;
  scope?: string;
  /** The role a signed-in person needs, where it differs from a key's (x-mmgen-session-role). */
  sessionRole?: Role;
  /** Only a signed-in person's session may call it (x-mmgen-session-only). */
  sessionOnly: boolean;
  /** With sessionOnly: a session opened with an API key may call it too (x-mmgen-key-session): its own session, its list. */
  keySession: boolean;
  consumesCredits: boolean;
  /** Only a live-mode caller may call it (x-mmgen-mode: live): it changes the organization, which test mode never does. */
  liveOnly: boolean;
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
  'x-mmgen-session-role'?: Role;
  'x-mmgen-session-only'?: boolean;
  'x-mmgen-key-session'?: boolean;
  'x-mmgen-consumes-credits'?: boolean;
  'x-mmgen-mode'?: Mode;
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
          sessionOnly: raw['x-mmgen-session-only'] === true,
          keySession: raw['x-mmgen-key-session'] === true,
          liveOnly: raw['x-mmgen-mode'] === 'live',
          ...(raw['x-mmgen-session-role'] ? { sessionRole: raw['x-mmgen-session-role'] } : {}),
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

/**
 * Who the dashboard acts as: an API key, or a signed-in person's membership (whose role is the member's; a session
 * has every scope). Pages read the mode, role and scopes from here, whichever it is.
 */
export interface Caller {
  kind: 'key' | 'session';
  /**
   * For a key: whether the tab holds a session opened with it (POST /v1/session/key), as the dashboard always does
   * now, rather than the key itself; such a session may call the session-only operations marked x-mmgen-key-session.
   */
  viaSession?: boolean;
  /** The key's id (key_…), or the session's (ses_…). */
  id: string;
  /** The key's name, or the person's email. */
  name: string;
  mode: Mode;
  role: Role;
  scopes: string[];
}

const article = (role: Role) => (role === 'admin' || role === 'owner' ? 'an' : 'a');

/** Whether the caller may call an operation: its role (a session's own where the server declares one), its scopes, its mode, and a paused organization. */
export function permission(op: Operation | undefined, caller: Caller, paused: boolean): Permission {
  if (!op) return { ok: false, reason: 'This server does not offer this operation.' };
  if (op.sessionOnly && caller.kind !== 'session' && !(op.keySession && caller.viaSession)) return { ok: false, reason: 'Only for a person signed in with an account, not an API key.' };
  const needed = caller.kind === 'session' ? (op.sessionRole ?? op.role) : op.role;
  if (needed && ROLES.indexOf(caller.role) < ROLES.indexOf(needed)) {
    const who = caller.kind === 'session' ? 'you are' : 'this key is';
    return { ok: false, reason: `Needs the ${needed} role; ${who} ${article(caller.role)} ${caller.role}.` };
  }
  if (op.scope && caller.scopes.length > 0 && !caller.scopes.includes(op.scope)) {
    return { ok: false, reason: `Needs the ${op.scope} scope, which this key lacks.` };
  }
  if (op.liveOnly && caller.mode !== 'live') {
    return { ok: false, reason: caller.kind === 'session' ? 'Changes the organization: switch to live mode.' : 'Changes the organization: only a live key may; this is a test key.' };
  }
  if (op.consumesCredits && paused) {
    return { ok: false, reason: 'The organization is paused by the spending anomaly detector.' };
  }
  return { ok: true };
}
