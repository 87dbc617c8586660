import { Type } from '@sinclair/typebox';
import { ROLES, type Role } from '../../domain/access.js';
import { finishSsoSignIn, getSsoSettings, putSsoSettings, removeSsoSettings, startSsoSignIn, type SsoPorts } from '../../domain/people/sso.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Nullable, Timestamp } from '../schemas.js';
import { sessionCookieNames, setSessionCookies } from '../session-cookie.js';

const portsOf = (deps: AppDeps): SsoPorts => ({
  db: deps.db,
  publicUrl: deps.config.publicUrl,
  allowPrivateNetwork: deps.config.allowPrivateNetwork,
  timeouts: { idleS: deps.config.accounts.sessionIdleS, maxS: deps.config.accounts.sessionMaxS },
});

const SsoSettings = Type.Object(
  {
    object: Type.Literal('sso_settings'),
    issuer: Type.String(),
    client_id: Type.String(),
    has_client_secret: Type.Boolean({ description: 'The secret itself is never answered.' }),
    auto_join_domains: Type.Array(Type.String(), { description: 'People whose verified email is at one of these domains join on their first sign-in.' }),
    auto_join_role: Type.String({ enum: [...ROLES] }),
    require_sso: Type.Boolean({ description: 'Everyone but the break-glass owner must sign in through the issuer.' }),
    break_glass_member_id: Nullable(Type.String()),
    redirect_uri: Type.String({ description: "Register this as the client's redirect URI at the issuer." }),
    updated_at: Timestamp,
  },
  { title: 'SsoSettings' },
);

export const getSso = defineRoute({
  method: 'GET',
  path: '/v1/organization/sso',
  operationId: 'getSsoSettings',
  summary: "The organization's single sign-on (OpenID Connect) settings",
  description: 'The issuer, client id (never its secret), auto-join domains and role, and whether SSO is required. 404 when none is configured.',
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage' },
  schema: { response: { 200: SsoSettings } },
  errors: [404],
  handler: async ({ principal, deps }) => ({ status: 200, body: await getSsoSettings(deps.db, principal, deps.config.publicUrl) }),
});

export const putSso = defineRoute({
  method: 'PUT',
  path: '/v1/organization/sso',
  operationId: 'updateSsoSettings',
  summary: 'Configure single sign-on through any OpenID Connect issuer',
  description:
    "Authorization code flow with PKCE, for any issuer that publishes discovery (read now: a wrong issuer is a 400 here). Omitted client_secret keeps the stored one; null makes a public client. require_sso needs a break-glass owner, who alone may still sign in with a password.",
  tag: 'People',
  auth: { role: 'owner', scope: 'members:manage', mode: 'live' },
  schema: {
    body: Type.Object(
      {
        issuer: Type.String({ minLength: 8, maxLength: 500 }),
        client_id: Type.String({ minLength: 1, maxLength: 500 }),
        client_secret: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
        auto_join_domains: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 253, pattern: '^[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$' }), { maxItems: 50 })),
        auto_join_role: Type.Optional(Type.String({ enum: ['admin', 'developer', 'viewer'] })),
        require_sso: Type.Optional(Type.Boolean()),
        break_glass_member_id: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
      },
      { additionalProperties: false },
    ),
    response: { 200: SsoSettings },
  },
  handler: async ({ principal, body, deps, request }) => ({
    status: 200,
    body: await putSsoSettings(portsOf(deps), principal, { ...body, auto_join_role: body.auto_join_role as Role | undefined }, requestOrigin(principal, request)),
  }),
});

export const deleteSso = defineRoute({
  method: 'DELETE',
  path: '/v1/organization/sso',
  operationId: 'deleteSsoSettings',
  summary: 'Turn single sign-on off',
  description: 'Members sign in with their passwords (or passkeys) again; accounts made through SSO keep their memberships. 404 when none is configured.',
  tag: 'People',
  auth: { role: 'owner', scope: 'members:manage', mode: 'live' },
  schema: { response: { 200: Type.Object({ object: Type.Literal('sso_settings'), deleted: Type.Literal(true) }) } },
  errors: [404],
  handler: async ({ principal, deps, request }) => ({ status: 200, body: await removeSsoSettings(deps.db, principal, requestOrigin(principal, request)) }),
});

export const startSso = defineRoute({
  method: 'POST',
  path: '/v1/sso/start',
  operationId: 'startSsoSignIn',
  summary: "Begin signing in through an organization's identity provider",
  description: "Answers the issuer's authorization URL (code flow, PKCE S256, state and nonce kept by mmgen for ten minutes); send the browser there. The issuer returns it to /v1/sso/callback.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object({ organization_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
    response: { 200: Type.Object({ authorization_url: Type.String() }) },
  },
  errors: [404],
  handler: async ({ body, deps }) => ({ status: 200, body: await startSsoSignIn(portsOf(deps), body.organization_id) }),
});

export const ssoCallback = defineRoute({
  method: 'GET',
  path: '/v1/sso/callback',
  operationId: 'finishSsoSignIn',
  summary: "The identity provider's redirect back: signs the person in",
  description:
    "Exchanges the code (checking PKCE, state, nonce and the ID token's signature against the issuer's JWKS), finds or makes the person by the ID token (subject, then verified email), joins them at the configured role when their email domain joins automatically, sets the session cookies and redirects to the dashboard.",
  tag: 'People',
  auth: null,
  schema: {
    querystring: Type.Object(
      {
        code: Type.Optional(Type.String({ maxLength: 4000 })),
        state: Type.Optional(Type.String({ maxLength: 500 })),
        iss: Type.Optional(Type.String({ maxLength: 500 })),
        session_state: Type.Optional(Type.String({ maxLength: 500 })),
        error: Type.Optional(Type.String({ maxLength: 500 })),
        error_description: Type.Optional(Type.String({ maxLength: 2000 })),
      },
      { additionalProperties: false },
    ),
    response: { 302: Type.String({ description: 'To /dashboard, signed in.', 'x-raw': true } as never) },
  },
  errors: [401, 403],
  handler: async ({ query, deps, request, reply }) => {
    if (query.error !== undefined) throw new ApiError('invalid_credentials', `Single sign-on failed at the identity provider: ${query.error}${query.error_description ? ` (${query.error_description})` : ''}.`);
    const current = new URL(`${deps.config.publicUrl}${request.url}`);
    const started = await finishSsoSignIn(portsOf(deps), current, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id });
    setSessionCookies(reply, sessionCookieNames(deps.config.publicUrl), { token: started.token, csrfToken: started.csrfToken, maxAgeS: deps.config.accounts.sessionMaxS });
    void reply.code(302).header('location', `${deps.config.publicUrl}/dashboard/`).send();
    return 'sent';
  },
});

export const ssoRoutes = [getSso, putSso, deleteSso, startSso, ssoCallback];
