import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal, Role, Scope } from '../domain/access.js';
import type { AppDeps } from '../deps.js';
import type { Tag } from './openapi-tags.js';

/**
 * One operation = one RouteDef: its schemas are the single source for request
 * validation, the TypeScript types of the handler, response serialization and
 * the OpenAPI document.
 */
export interface RouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** Success responses by status; error responses are added from the auth and validation rules. */
  response: Record<number, TSchema>;
}

export interface AuthSpec {
  role: Role;
  /** The scope a scoped key needs; none means any key of the role may call. */
  scope?: Scope;
  /** Credit-consuming operations are refused while the organization is paused. */
  consumesCredits?: boolean;
  /**
   * The request may be authenticated from this process's key cache because
   * every effect of the route happens in, or after, a statement that confirms
   * the key's fingerprint (acceptStatement) or checks it first
   * (confirmCachedPrincipal): a stale key throws StaleAuthentication and the
   * request is authenticated afresh. Before that, only the rate-limit count and
   * an Idempotency-Key claim are written for it (a revoked key's claim then
   * records its 401).
   */
  cacheable?: boolean;
  /** Only a signed-in person's session may call (its own sessions, switching organization); a key gets 403 session_required. */
  sessionOnly?: boolean;
  /**
   * With sessionOnly: a dashboard session opened with an API key may call it too (its own session, its list, ending
   * one); the key itself, as a bearer, still may not. Every other session-only operation is a person's.
   */
  keySession?: boolean;
  /**
   * The role a signed-in person needs, when lower than a key's: a developer makes and revokes their own keys in
   * the dashboard (never above their role), while a developer key still manages no keys.
   */
  sessionRole?: Role;
  /**
   * 'live': the write changes what live mode runs on (people, the organization's settings, single sign-on, the data
   * policy, billing), so only a live-mode credential may make it; a test key, its dashboard session and a person's
   * session in test mode get 403 live_mode_required (docs/contract-addenda.md, "Test mode and the organization's
   * writes"). Left out: the operation reads, or writes only its caller's own mode's data or the person's own.
   */
  mode?: 'live';
}

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;

export interface RouteContext<S extends RouteSchema> {
  params: StaticOf<S['params']>;
  query: StaticOf<S['querystring']>;
  body: StaticOf<S['body']>;
  /** The authenticated caller; reading it on a public route throws. */
  principal: Principal;
  deps: AppDeps;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A handler returns a JSON reply, or 'sent' when it wrote the response itself (streams, files). */
export type HandlerResult = JsonReply | 'sent';

export interface RouteDef<S extends RouteSchema = RouteSchema> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path, e.g. /v1/api-keys/{id}. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does, for readers of the OpenAPI document (and its linters): required, so none is forgotten. */
  description: string;
  /** One of the document's described tags (openapi-tags.ts). */
  tag: Tag;
  /** null: public (no API key). */
  auth: AuthSpec | null;
  schema: S;
  /** Content types other than JSON that the body may have (e.g. uploads). */
  rawBody?: {
    contentTypes: string[];
    maxBytes: number;
    /**
     * Turns the bytes into the handler's body (a multipart form into its fields and files) before the
     * Idempotency-Key fingerprint, which is then of what the request says, not of how it was framed.
     */
    parse?: (bytes: Buffer, contentType: string) => Promise<unknown>;
    /** The documented shape of a parsed body (a multipart form's parts), for the OpenAPI document. */
    schema?: TSchema;
  };
  /**
   * A compatible path (contract §12): the operation of another API's documented shape, served so that its official
   * SDKs and the clients built on them work against mmgen. Marked in the OpenAPI document (`x-mmgen-compatible`).
   */
  compatible?: { api: 'openai' | 'anthropic'; reference: string };
  /** Facts about the operation that clients read from the OpenAPI document, as its `x-mmgen-…` extensions. */
  extensions?: Readonly<Record<`x-mmgen-${string}`, unknown>>;
  /** Extra documented error codes beyond those derived from auth and validation. */
  errors?: number[];
  /**
   * A check of its own before validation, for a route no API key opens (`auth: null`): the admin API's operator
   * credential (operator-auth.ts), so that an unauthenticated caller learns nothing of its bodies.
   */
  gate?: (request: FastifyRequest, deps: AppDeps) => Promise<void>;
  handler: (ctx: RouteContext<S>) => Promise<HandlerResult>;
}

export function defineRoute<S extends RouteSchema>(def: RouteDef<S>): RouteDef<S> {
  return def;
}
