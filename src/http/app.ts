import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { StaleAuthentication, type Principal } from '../domain/access.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { isDatabaseUnavailable } from '../store/db.js';
import { createAuthenticator, type Authenticator } from './auth.js';
import { registerDashboard } from './dashboard.js';
import { registerIdempotency } from './idempotency.js';
import { assertCleanInput, forbiddenKeyParam } from './input-guard.js';
import { jsonShapeProblem, JSON_LIMITS_TEXT, MAX_JSON_BODY_BYTES } from '../json-shape.js';
import { toFastifyPath } from './openapi.js';
import type { HandlerResult, RouteContext, RouteDef, RouteSchema } from './route.js';
import { makeAjv, validationError } from '../validation.js';
import { allRoutes } from './routes/index.js';
import { capturePayloads } from './payload-capture.js';
import { recordRequest, noteError, type LogFacts } from './request-log-hook.js';
import { isObject } from '../providers/http.js';


/** Operations routes that still answer while the node drains (liveness and metrics; readiness reports the drain itself). */
const DURING_DRAIN = new Set(['healthz', 'readyz', 'metrics']);
const NO_QUERY = Type.Object({}, { additionalProperties: false });

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The body's top-level fields as the client sent them, before the schema fills in defaults: a model is held to what was sent (enforceParameters). */
    sentFields: ReadonlySet<string> | null;
    /** What the request log's row says beyond what the request itself shows (request-log-hook.ts). */
    logFacts: LogFacts | null;
  }
  interface FastifyContextConfig {
    def?: RouteDef;
  }
}

/** The field names of a JSON body before validation (see FastifyRequest.sentFields). */
function sentFieldsOf(body: unknown): ReadonlySet<string> | null {
  return isObject(body) ? new Set(Object.keys(body)) : null;
}

/** Maps anything thrown while serving a request to the contract's error table. */
export function toApiError(err: unknown, def?: RouteDef): ApiError {
  if (err instanceof ApiError) return err;
  const raw = def?.rawBody;
  if (raw) {
    // Routes that take file bytes (upload PUTs) speak of their own types and limits, not JSON's.
    const code = (err as { code?: string }).code;
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return new ApiError('parameter_invalid', `Content-Type must be one of: ${raw.contentTypes.join(', ')}.`, 'Content-Type');
    }
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('payload_too_large', `The body is larger than ${raw.maxBytes} bytes.`);
  }
  const fe = err as Partial<FastifyError> & { validation?: ErrorObject[]; validationContext?: string };
  if (fe.validation && fe.validation.length > 0) return validationError(fe.validation, fe.validationContext);
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body is larger than ${MAX_JSON_BODY_BYTES} bytes. Upload files with POST /v1/uploads.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_json', 'The request body does not match its Content-Length.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return new ApiError('payload_too_large', 'The request body is too large.');
    if (fe.statusCode === 415) return new ApiError('unsupported_media_type', 'Unsupported Content-Type.');
    return new ApiError('parameter_invalid', 'The request could not be read.');
  }
  if (isDatabaseUnavailable(err)) {
    return new ApiError('service_unavailable', 'mmgen cannot reach its database right now. Retry shortly (with the same Idempotency-Key).').withHeader('Retry-After', '1');
  }
  return new ApiError('internal_error', 'An internal error occurred. Quote the request id when you report it.');
}

/**
 * Requests Node's HTTP parser refuses (a control character in a header value,
 * e.g. an Idempotency-Key) never reach a route; they still get the contract's
 * envelope and a request id rather than Fastify's own body.
 */
function malformedHttp(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const id = newId('req');
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large.'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request was not received in time.'
          : 'The request is not valid HTTP (for example, a control character in a header value).';
    const apiErr = new ApiError('parameter_invalid', message);
    const body = JSON.stringify(apiErr.body(id));
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export async function buildApp(deps: AppDeps, routes: RouteDef[] = allRoutes()): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // Per-request lines are left to the access log of the proxy in front; errors are logged here.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId('req'),
    requestIdHeader: false,
    trustProxy: deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false,
    bodyLimit: MAX_JSON_BODY_BYTES,
    // Refused while draining by our own hook instead, in the contract's envelope.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler: malformedHttp,
    // Fastify's default is no limit, so a client sending half a body would hold its connection forever.
    // Node reads these at server creation (and checks them every connectionsCheckingInterval).
    requestTimeout: deps.config.requestTimeoutMs,
    http: {
      requestTimeout: deps.config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, deps.config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(deps.config.requestTimeoutMs / 4))),
    },
    // URLs the router cannot decode (%ZZ, %E0%A4%A) or whose path parameter is over maxParamLength.
    frameworkErrors: (err, request, reply) => {
      const message =
        (err as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is longer than 200 characters.'
          : 'The URL is not valid: a percent-encoded sequence in its path does not decode to UTF-8 text.';
      const apiErr = new ApiError('parameter_invalid', message);
      void (reply as FastifyReply).status(apiErr.status).header('X-Request-Id', request.id).send(apiErr.body(request.id));
    },
  });
  if (deps.tracing.on) traceRequests(app, deps);
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));

  app.decorateRequest('principal', null);
  app.decorateRequest('sentFields', null);
  app.decorateRequest('logFacts', null);
  app.decorateRequest('capture', null);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const text = (body as Buffer).toString('utf8');
    // Before anything parses or walks the body, whatever route it is for (src/json-shape.ts).
    const shape = jsonShapeProblem(text);
    if (shape) return done(new ApiError('parameter_invalid', `${shape.message} ${JSON_LIMITS_TEXT}`, shape.param), undefined);
    // A route that verifies a signature over the bytes (Stripe's webhook) takes them as they came.
    if (req.routeOptions.config.def?.rawBody?.contentTypes.includes('application/json')) return done(null, body);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      const param = forbiddenKeyParam(text);
      done(
        param === null
          ? new ApiError('invalid_json', 'The request body is not valid JSON.')
          : new ApiError('parameter_unknown', `Unknown parameter: ${param}. No operation takes it; it is refused because it could reach an object's prototype.`, param),
        undefined,
      );
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // Anthropic's SDKs read the request id from `request-id` (its `_request_id`, quoted in bug reports). Set on the raw
    // response so that a streamed answer, written past Fastify, carries it too.
    if (request.routeOptions.config.def?.compatible?.api === 'anthropic') reply.raw.setHeader('request-id', request.id);
    // A node shutting down takes no new work; the client sends the request again and reaches another node.
    if (deps.lifecycle.draining && !DURING_DRAIN.has(request.routeOptions.config.def?.operationId ?? '')) {
      void reply.header('Connection', 'close');
      throw new ApiError('service_unavailable', 'This mmgen node is shutting down. Send the request again.').withHeader('Retry-After', '1');
    }
  });
  // A response sent while the node drains closes its connection. Kept alive, the socket would
  // go idle after the drain began, and only the grace period's cut would close it.
  // Callback style: no promise per response on the hot path.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (deps.lifecycle.draining) void reply.header('Connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    const seconds = reply.elapsedTime / 1000;
    deps.metrics.httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, seconds);
    recordRequest(deps, request, reply);
    if (!deps.log.isLevelEnabled('info')) return;
    request.log.info(
      {
        method: request.method,
        route,
        url: request.url,
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        ...(request.principal ? { keyId: request.principal.keyId, organizationId: request.principal.organizationId } : {}),
      },
      'request completed',
    );
  });
  const authenticator = createAuthenticator(deps);
  app.addHook('onRequest', deps.tracing.on ? tracedAuthentication(deps, authenticator) : authenticator.onRequest);
  app.addHook('onRequest', capturePayloads(deps));
  app.addHook('onRequest', async (request) => {
    await request.routeOptions.config.def?.gate?.(request, deps);
  });
  // A body-less POST counts as {} so that required fields are reported by name.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    request.sentFields = sentFieldsOf(request.body);
  });
  // After schema validation (so an unknown or mistyped field is reported as such first), before the
  // idempotency fingerprint and the handler: text PostgreSQL cannot store, and bodies nested too deep.
  app.addHook('preHandler', async (request) => {
    assertCleanInput(request.params, 'params');
    assertCleanInput(request.query, 'querystring');
    assertCleanInput(request.body, 'body');
  });
  // After authentication, rate limit and validation (their errors never claim a key), before the handler.
  registerIdempotency(app, deps, authenticator);

  app.setErrorHandler(async (err, request, reply) => {
    let error: unknown = err;
    // An error is an answer too: a key taken from the cache gets it only if the key is unchanged (else, its 401 or 403).
    if (request.principal?.unconfirmedFingerprint !== undefined) await authenticator.confirm(request).catch((authErr: unknown) => (error = authErr));
    const apiErr = toApiError(error, request.routeOptions.config?.def);
    noteError(request, apiErr.code);
    if (apiErr.status >= 500 && apiErr.code === 'internal_error') {
      // The path only: a query string may be a credential (the signature of a presigned URL).
      request.log.error({ err, reqId: request.id, method: request.method, path: request.url.split('?')[0] }, 'internal error');
    } else if (apiErr.code === 'service_unavailable') {
      request.log.warn({ err, reqId: request.id, method: request.method, path: request.url.split('?')[0] }, 'service unavailable');
    }
    return reply.status(apiErr.status).headers(apiErr.headers).send(apiErr.body(request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const err = new ApiError('route_not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`);
    noteError(request, err.code);
    void reply.status(err.status).send(err.body(request.id));
  });

  for (const def of routes) registerRoute(app, deps, def, authenticator);
  await registerDashboard(app, deps.config);
  return app;
}

/**
 * Tracing on: each request in a server span named by its route (`POST /v1/images`), carrying its request id, so a
 * trace and the request log's row (or a line of the JSON log, which carries trace_id) find each other.
 */
function traceRequests(app: FastifyInstance, deps: AppDeps): void {
  const routes = new WeakMap<IncomingMessage, string>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined) routes.set(request.raw, route);
    deps.tracing.current().set({ 'mmgen.request_id': request.id });
    done();
  });
  deps.tracing.traceRequests(app.server, (req) => {
    const route = routes.get(req);
    return { name: route === undefined ? (req.method ?? 'HTTP') : `${req.method ?? 'HTTP'} ${route}`, attributes: { 'http.route': route } };
  });
}

/** Authentication in a span of its own: who the key is (ids only), or the code it was refused with. */
function tracedAuthentication(deps: AppDeps, authenticator: Authenticator): Authenticator['onRequest'] {
  return (request, reply) =>
    deps.tracing.span('mmgen.authenticate', {}, async (span) => {
      await authenticator.onRequest(request, reply);
      const p = request.principal;
      if (p) span.set({ 'mmgen.organization.id': p.organizationId, 'mmgen.api_key.id': p.keyId, 'mmgen.mode': p.mode });
    });
}

function registerRoute(app: FastifyInstance, deps: AppDeps, def: RouteDef, authenticator: Authenticator): void {
  const s = def.schema;
  if (def.rawBody) {
    for (const type of def.rawBody.contentTypes) {
      if (!app.hasContentTypeParser(type)) {
        app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: def.rawBody.maxBytes }, (req, body, done) => {
          // A parser serves the whole app: a type only another route takes is refused here as any non-JSON body is
          // (415), and each route's body is read by its own parse.
          const own = req.routeOptions.config.def?.rawBody;
          if (!own?.contentTypes.includes(type)) {
            return done(Object.assign(new Error(`Unsupported Content-Type: ${type}`), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }), undefined);
          }
          const parse = own.parse;
          if (!parse) return done(null, body);
          parse(body as Buffer, req.headers['content-type'] ?? type).then(
            (parsed) => done(null, parsed),
            (err: unknown) => done(err instanceof Error ? err : new Error(String(err)), undefined),
          );
        });
      }
    }
  }
  app.route({
    method: def.method,
    url: toFastifyPath(def.path),
    schema: {
      ...(s.params ? { params: s.params } : {}),
      // A route without query parameters refuses any, like unknown body fields (a typo never passes silently).
      querystring: s.querystring ?? NO_QUERY,
      ...(s.body ? { body: s.body } : {}),
      response: s.response,
    },
    ...(def.rawBody ? { bodyLimit: def.rawBody.maxBytes } : {}),
    config: { def },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx: RouteContext<RouteSchema> = {
        params: request.params as never,
        query: request.query as never,
        body: request.body as never,
        get principal(): Principal {
          if (!request.principal) throw new Error(`route ${def.operationId} read the principal but is public`);
          return request.principal;
        },
        deps,
        request,
        reply,
      };
      let result: HandlerResult;
      try {
        result = await def.handler(ctx);
      } catch (err) {
        // A principal from the key cache that is still unconfirmed has had no effect (AuthSpec.cacheable). If its key
        // changed (the accepting statement says so, or a check now does, before an error decided on the cached copy
        // is answered), the request is decided on the key as it is now: a revoked key gets 401; one that still passes runs again.
        let rerun: boolean;
        if (err instanceof StaleAuthentication) {
          await authenticator.afresh(request);
          rerun = true;
        } else {
          rerun = await authenticator.confirm(request);
        }
        if (!rerun) throw err;
        result = await def.handler(ctx);
      }
      if (result === 'sent') return reply;
      if (result.headers) void reply.headers(result.headers);
      return reply.status(result.status).send(result.body);
    },
  });
}
