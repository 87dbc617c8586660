import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ROLES, SCOPES, type Mode, type Role } from '../../domain/access.js';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from '../../domain/people/invitations.js';
import { getMember, listOrganizationMembers, removeMember, updateMember } from '../../domain/people/members.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../domain/people/passwords.js';
import {
  authenticateSession,
  getSessionView,
  listOwnSessions,
  revokeOwnSession,
  startedKeySessionView,
  startedSessionView,
  switchOwnSession,
  type SessionView,
  type StartedSession,
} from '../../domain/people/sessions.js';
import { updateOwnAccount } from '../../domain/people/second-factor.js';
import { PENDING_TTL_MS, signInWithKey, signInWithPassword } from '../../domain/people/sign-in.js';
import { ApiError } from '../../errors.js';
import type { AppDeps } from '../../deps.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Budget, BudgetAction, Deleted, IdParams, ListOf, Nullable, Timestamp } from '../schemas.js';
import { assertCsrf, clearSessionCookies, pendingCookie, readSessionToken, sessionCookieNames, setCsrfCookie, setSessionCookies } from '../session-cookie.js';

const RoleField = Type.String({ enum: [...ROLES] });
const ModeField = Type.String({ enum: ['live', 'test'] });

const Membership = Type.Object({
  organization_id: Type.String(),
  organization_name: Type.String(),
  member_id: Type.String({ description: 'usr_…: the person in that organization.' }),
  role: RoleField,
});

const SessionKey = Type.Object(
  {
    id: Type.String({ description: 'key_…' }),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, as listed by GET /v1/api-keys (never the secret).' }),
    mode: ModeField,
    role: RoleField,
    effective_role: Type.String({ enum: [...ROLES], description: "What the key may do now: the lesser of `role` and its member's role." }),
    scopes: Type.Array(Type.String({ enum: [...SCOPES] }), { description: 'Empty: every operation the role allows.' }),
  },
  { title: 'SessionKey', description: 'The API key a session opened with one acts as.' },
);

export const Session = Type.Object(
  {
    id: Type.String({ description: 'ses_…' }),
    object: Type.Literal('session'),
    kind: Type.String({
      enum: ['person', 'api_key'],
      description: 'person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.',
    }),
    account: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          email: Type.String(),
          name: Nullable(Type.String()),
          has_password: Type.Boolean(),
          passkey_after_password: Type.Boolean({ description: 'A password sign-in of this person also needs one of their passkeys (PATCH /v1/account).' }),
        }),
        Type.Null(),
      ],
      { description: 'The person signed in; null for a session opened with an API key.' },
    ),
    api_key: Type.Union([SessionKey, Type.Null()], { description: 'The key a session opened with an API key acts as; null for a person\'s session.' }),
    organization_id: Type.String({ description: 'The organization the session acts in now.' }),
    member_id: Type.String({ description: 'The membership the session acts as (for a key\'s session, the member the key belongs to).' }),
    role: Type.String({ enum: [...ROLES], description: "The role the session acts with: the member's, or for a key's session the key's effective role." }),
    mode: ModeField,
    method: Type.String({ description: 'How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key.' }),
    created_at: Timestamp,
    expires_at: Timestamp,
    memberships: Type.Array(Membership, {
      description: "Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode).",
    }),
  },
  { title: 'Session' },
);

export const SignedIn = Type.Object(
  {
    ...Session.properties,
    csrf_token: Type.String({ description: 'Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie).' }),
  },
  { title: 'SignedIn' },
);

const SessionItem = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('session'),
    current: Type.Boolean({ description: 'The session this request came with.' }),
    method: Type.String(),
    ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    created_at: Timestamp,
    last_seen_at: Timestamp,
    expires_at: Timestamp,
  },
  { title: 'SessionListItem' },
);

const timeoutsOf = (deps: AppDeps) => ({ idleS: deps.config.accounts.sessionIdleS, maxS: deps.config.accounts.sessionMaxS });
const clientOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? null });

/** Sets the new session's cookies and answers its view with the CSRF token (the only answer that carries it). */
export async function answerSignedIn(deps: AppDeps, reply: FastifyReply, started: StartedSession, view?: SessionView) {
  setSessionCookies(reply, sessionCookieNames(deps.config.publicUrl), { token: started.token, csrfToken: started.csrfToken, maxAgeS: deps.config.accounts.sessionMaxS });
  return { status: 201, body: { ...(view ?? (await startedSessionView(deps.db, started))), csrf_token: started.csrfToken } };
}

export const signIn = defineRoute({
  method: 'POST',
  path: '/v1/session',
  operationId: 'signIn',
  summary: 'Sign in with an email and password',
  description:
    'Starts a dashboard session: sets the HttpOnly session cookie and the readable CSRF cookie. A wrong email or password is one 401 `invalid_credentials` whichever was wrong; repeated failures are slowed, then locked (429) per email and per address. Signs in to `organization_id` when given, else to the oldest membership. When the person asks for a passkey after their password, the right password starts no session: 401 `second_factor_required` sets a short-lived, single-use HttpOnly cookie for POST /v1/session/second-factor/options and POST /v1/session/second-factor, which finish the sign-in with one of their passkeys.',
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object(
      {
        email: Type.String({ minLength: 3, maxLength: 320 }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
        organization_id: Type.Optional(Type.String({ maxLength: 100 })),
        mode: Type.Optional(ModeField),
      },
      { additionalProperties: false },
    ),
    response: { 201: SignedIn },
  },
  errors: [401, 404, 429],
  handler: async ({ body, deps, request, reply }) => {
    const started = await signInWithPassword(
      { db: deps.db, clock: deps.clock, signIn: deps.rateLimiter.signIn, timeouts: timeoutsOf(deps), slowAfter: deps.config.accounts.slowAfter },
      { ...body, mode: body.mode as Mode | undefined },
      { ...clientOf(request), requestId: request.id },
    );
    if ('pending' in started) {
      throw new ApiError(
        'second_factor_required',
        'Your password is right; your account also asks for one of your passkeys. POST /v1/session/second-factor/options, then POST /v1/session/second-factor with the browser\'s answer (within five minutes).',
      ).withHeader('Set-Cookie', pendingCookie(sessionCookieNames(deps.config.publicUrl), started.token, Math.round(PENDING_TTL_MS / 1000)));
    }
    return answerSignedIn(deps, reply, started);
  },
});

const Account = Type.Object(
  {
    id: Type.String({ description: 'acc_…' }),
    object: Type.Literal('account'),
    email: Type.String(),
    name: Nullable(Type.String()),
    has_password: Type.Boolean(),
    passkey_after_password: Type.Boolean({ description: 'A password sign-in also needs one of the person\'s passkeys.' }),
  },
  { title: 'Account' },
);

export const updateAccountRoute = defineRoute({
  method: 'PATCH',
  path: '/v1/account',
  operationId: 'updateAccount',
  summary: "Change the signed-in person's own sign-in settings",
  description:
    '`passkey_after_password: true` makes every password sign-in of the person also ask for one of their passkeys (a second factor); a passkey sign-in alone and single sign-on are unchanged. Turning it on needs a password and at least one passkey (409 `passkey_required`); while it is on, the last passkey cannot be removed. Recorded as `account.updated` with before and after.',
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: {
    body: Type.Object({ passkey_after_password: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 200: Account },
  },
  errors: [409],
  handler: async ({ principal, body, deps, request }) => ({
    status: 200,
    body: await updateOwnAccount(deps.db, principal, body, requestOrigin(principal, request)),
  }),
});

export const signInWithKeyRoute = defineRoute({
  method: 'POST',
  path: '/v1/session/key',
  operationId: 'signInWithKey',
  summary: 'Open a dashboard session with an API key',
  description:
    "Exchanges an API key, once, for a dashboard session that acts exactly as that key (its organization, mode, effective role, scopes, IP allowlist, budgets, rate limit and request-log attribution): sets the same HttpOnly session cookie and readable CSRF cookie as a person's sign-in, with the same idle and absolute timeouts, so the browser never has to keep the key. Revoking the key, lowering its member's role or removing the member applies to the session from its next request. A malformed, unknown or revoked key is one 401 `invalid_api_key`; repeated failures are slowed, then locked (429) per address, as failed password sign-ins are. Send the key in the body only: this operation takes no Authorization header.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object(
      { api_key: Type.String({ minLength: 1, maxLength: 300, description: 'sk_live_… or sk_test_…' }) },
      { additionalProperties: false },
    ),
    response: { 201: SignedIn },
  },
  errors: [401, 403, 429],
  handler: async ({ body, deps, request, reply }) => {
    const { started, key } = await signInWithKey(
      { db: deps.db, clock: deps.clock, signIn: deps.rateLimiter.signIn, timeouts: timeoutsOf(deps), slowAfter: deps.config.accounts.slowAfter },
      body.api_key,
      { ...clientOf(request), requestId: request.id },
    );
    return answerSignedIn(deps, reply, started, await startedKeySessionView(deps.db, started, key));
  },
});

export const getSession = defineRoute({
  method: 'GET',
  path: '/v1/session',
  operationId: 'getSession',
  summary: 'The signed-in person, the organization the session acts in, and every organization they belong to',
  description:
    "For the dashboard session only (an API key sent as a bearer gets 403 `session_required`). For a session opened with an API key (`kind` api_key), `api_key` names the key it acts as and `account` is null.",
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true, keySession: true },
  schema: { response: { 200: Session } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await getSessionView(deps.db, principal) }),
});

export const switchSession = defineRoute({
  method: 'PATCH',
  path: '/v1/session',
  operationId: 'switchSession',
  summary: 'Switch the session to another of the person\'s organizations, or to the other mode',
  description:
    'From the next request on, the session acts as the person\'s membership of `organization_id` (with that membership\'s role), in `mode`. A switch that changes either gives the session a new CSRF token (`csrf_token`, and the readable CSRF cookie): a request that still sends the old one is refused with 403 `csrf_token_invalid`, so nothing meant for the organization or mode left behind lands in the one switched to. A switch that changes neither answers the token the session has.',
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: {
    body: Type.Object(
      { organization_id: Type.Optional(Type.String({ maxLength: 100 })), mode: Type.Optional(ModeField) },
      { additionalProperties: false },
    ),
    response: { 200: SignedIn },
  },
  handler: async ({ principal, body, deps, request, reply }) => {
    const { view, csrf } = await switchOwnSession(deps.db, principal, { organization_id: body.organization_id, mode: body.mode as Mode | undefined }, requestOrigin(principal, request));
    if (csrf.changed) setCsrfCookie(reply, sessionCookieNames(deps.config.publicUrl), csrf.token, csrf.remainingS);
    return { status: 200, body: { ...view, csrf_token: csrf.token } };
  },
});

export const signOut = defineRoute({
  method: 'DELETE',
  path: '/v1/session',
  operationId: 'signOut',
  summary: 'Sign out: end the current session',
  description: 'Ends the session of the cookie sent (with its CSRF token) and clears the cookies. Answers 200 when there was no live session.',
  tag: 'People',
  auth: null,
  schema: { response: { 200: Deleted('session') } },
  handler: async ({ deps, request, reply }) => {
    const names = sessionCookieNames(deps.config.publicUrl);
    const token = readSessionToken(request, names);
    let id = 'none';
    if (token !== undefined) {
      const found = await authenticateSession(deps.db, timeoutsOf(deps), token).catch(() => null);
      if (found) {
        assertCsrf(request, found.csrfToken);
        // A person's session, or one opened with an API key (whose sign-out is the key's act, as its sign-in was).
        id = found.principal.sessionId ?? found.principal.keySessionId!;
        await revokeOwnSession(deps.db, found.principal, id, requestOrigin(found.principal, request), 'sign_out');
      }
    }
    clearSessionCookies(reply, names);
    return { status: 200, body: { id, object: 'session', deleted: true } };
  },
});

export const listSessions = defineRoute({
  method: 'GET',
  path: '/v1/sessions',
  operationId: 'listSessions',
  summary: "The signed-in person's live sessions",
  description:
    'Every session of the person that has not ended: where and when it signed in, and when it was last used. For a session opened with an API key: the live sessions opened with that key.',
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true, keySession: true },
  schema: { response: { 200: ListOf(SessionItem) } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await listOwnSessions(deps.db, principal, timeoutsOf(deps)) }),
});

export const deleteSession = defineRoute({
  method: 'DELETE',
  path: '/v1/sessions/{id}',
  operationId: 'revokeSession',
  summary: 'End one of your sessions',
  description:
    "The session answers 401 from its next request on. Another person's session is 404, as one that never existed; a session opened with an API key ends only sessions opened with that key.",
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true, keySession: true },
  schema: { params: IdParams, response: { 200: Deleted('session') } },
  handler: async ({ principal, params, deps, request }) => ({ status: 200, body: await revokeOwnSession(deps.db, principal, params.id, requestOrigin(principal, request), 'revoke') }),
});

const Member = Type.Object(
  {
    id: Type.String({ description: 'usr_…' }),
    object: Type.Literal('member'),
    email: Nullable(Type.String({ description: 'Null for the first-start owner until someone accepts the owner link.' })),
    name: Nullable(Type.String()),
    role: RoleField,
    monthly_budget_usd: Nullable(Type.Number({ description: "The member's monthly budget over all of their keys (their dashboard sessions' generations included); null: none." })),
    budget_action: Type.String({ enum: ['notify', 'block'] }),
    spent_usd: Type.Number({ description: "Live credits charged this calendar month (UTC) plus those held now, in US dollars, of all of the member's keys (revoked ones and their dashboard sessions' included)." }),
    created_at: Timestamp,
    last_signed_in_at: Nullable(Type.String({ format: 'date-time', description: "When the person last signed in (to any of their organizations); null before their first sign-in." })),
  },
  { title: 'Member' },
);

export const listMembersRoute = defineRoute({
  method: 'GET',
  path: '/v1/members',
  operationId: 'listMembers',
  summary: "The organization's members and their roles",
  description: 'Every current member. Removed members are not listed (their keys are revoked).',
  tag: 'People',
  auth: { role: 'viewer', scope: 'members:manage' },
  schema: { response: { 200: ListOf(Member) } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await listOrganizationMembers(deps.db, principal) }),
});

export const getMemberRoute = defineRoute({
  method: 'GET',
  path: '/v1/members/{id}',
  operationId: 'getMember',
  summary: 'A member of the organization',
  description: 'A member of another organization is 404, as one that never existed.',
  tag: 'People',
  auth: { role: 'viewer', scope: 'members:manage' },
  schema: { params: IdParams, response: { 200: Member } },
  handler: async ({ principal, params, deps }) => ({ status: 200, body: await getMember(deps.db, principal, params.id) }),
});

export const updateMemberRoute = defineRoute({
  method: 'PATCH',
  path: '/v1/members/{id}',
  operationId: 'updateMember',
  summary: "Change a member's role or monthly budget",
  description:
    "Fields left out keep their value. Up to the caller's own role, of a member whose role is not above the caller's. The member's keys act with at most the new role from their next request, on every node. The last owner cannot be demoted (409 `last_owner`). " +
    "`monthly_budget_usd` and `budget_action` set the member's budget, which counts the live spend of all of their keys (their dashboard sessions' generations included) this calendar month, as keys' budgets do (contract §7): `block` refuses a request that would pass it with 402 `budget_exceeded`, from the member's keys' next request on every node.",
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage', mode: 'live' },
  schema: {
    params: IdParams,
    body: Type.Object(
      { role: Type.Optional(RoleField), monthly_budget_usd: Type.Optional(Budget), budget_action: Type.Optional(BudgetAction) },
      { additionalProperties: false },
    ),
    response: { 200: Member },
  },
  errors: [409],
  handler: async ({ principal, params, body, deps, request }) => {
    const b = body as { role?: Role; monthly_budget_usd?: number | null; budget_action?: 'notify' | 'block' };
    return { status: 200, body: await updateMember(deps.db, principal, params.id, b, requestOrigin(principal, request)) };
  },
});

export const removeMemberRoute = defineRoute({
  method: 'DELETE',
  path: '/v1/members/{id}',
  operationId: 'removeMember',
  summary: 'Remove a member; their keys are revoked',
  description:
    "The member's keys answer 401 and their sessions in this organization end from their next request, on every node. The last owner cannot be removed (409 `last_owner`). Their generations, usage and ledger entries stay.",
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage', mode: 'live' },
  schema: {
    params: IdParams,
    response: {
      200: Type.Object({ id: Type.String(), object: Type.Literal('member'), deleted: Type.Literal(true), revoked_keys: Type.Integer({ description: "How many of the member's keys (dashboard session keys included) were revoked." }) }),
    },
  },
  errors: [409],
  handler: async ({ principal, params, deps, request }) => ({ status: 200, body: await removeMember(deps.db, principal, params.id, requestOrigin(principal, request)) }),
});

const Invitation = Type.Object(
  {
    id: Type.String({ description: 'inv_…' }),
    object: Type.Literal('invitation'),
    email: Nullable(Type.String()),
    role: RoleField,
    invited_by: Nullable(Type.String({ description: 'The member who invited.' })),
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  { title: 'Invitation' },
);

const CreatedInvitation = Type.Object(
  {
    ...Invitation.properties,
    url: Type.String({ description: 'The link that accepts it: returned only here, to copy (it is also mailed when SMTP is configured).' }),
    mail: Type.String({ enum: ['sent', 'not_configured', 'failed'], description: 'Whether the invitation was mailed.' }),
  },
  { title: 'CreatedInvitation' },
);

export const createInvitationRoute = defineRoute({
  method: 'POST',
  path: '/v1/invitations',
  operationId: 'createInvitation',
  summary: 'Invite a person by email',
  description:
    "At a role up to the caller's own. The invitation is mailed over SMTP when the operator configured it (MMGEN_SMTP_URL); its link is returned either way, once, to copy.",
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage', mode: 'live' },
  schema: {
    body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: RoleField }, { additionalProperties: false }),
    response: { 201: CreatedInvitation },
  },
  errors: [409],
  handler: async ({ principal, body, deps, request }) => ({
    status: 201,
    body: await createInvitation(
      { db: deps.db, mailer: deps.mailer, publicUrl: deps.config.publicUrl, ttlS: deps.config.accounts.invitationTtlS },
      principal,
      { email: body.email, role: body.role as Role },
      request.log,
      requestOrigin(principal, request),
    ),
  }),
});

export const listInvitationsRoute = defineRoute({
  method: 'GET',
  path: '/v1/invitations',
  operationId: 'listInvitations',
  summary: 'Invitations not yet accepted',
  description: 'Pending invitations (neither accepted, revoked nor expired); their links are never listed.',
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage' },
  schema: { response: { 200: ListOf(Invitation) } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await listInvitations(deps.db, principal) }),
});

export const revokeInvitationRoute = defineRoute({
  method: 'DELETE',
  path: '/v1/invitations/{id}',
  operationId: 'revokeInvitation',
  summary: 'Revoke an invitation',
  description: 'Its link no longer works.',
  tag: 'People',
  auth: { role: 'admin', scope: 'members:manage', mode: 'live' },
  schema: { params: IdParams, response: { 200: Deleted('invitation') } },
  handler: async ({ principal, params, deps, request }) => ({ status: 200, body: await revokeInvitation(deps.db, principal, params.id, requestOrigin(principal, request)) }),
});

export const acceptInvitationRoute = defineRoute({
  method: 'POST',
  path: '/v1/invitations/accept',
  operationId: 'acceptInvitation',
  summary: 'Accept an invitation with its token, and sign in',
  description:
    "Without a session: creates the person's account (the invitation's email, or `email` for the first-start owner link, and `password`) and signs in. With a session (and its CSRF token): the signed-in person joins. 410 `invitation_invalid` for a used, revoked or expired link.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object(
      {
        token: Type.String({ minLength: 20, maxLength: 200 }),
        email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
        password: Type.Optional(Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description: 'The new account\'s password; not used when a signed-in person joins.' })),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
    response: { 201: SignedIn },
  },
  errors: [401, 409, 410],
  handler: async ({ body, deps, request, reply }) => {
    const names = sessionCookieNames(deps.config.publicUrl);
    const token = readSessionToken(request, names);
    let signedIn: { accountId: string } | null = null;
    if (token !== undefined) {
      const found = await authenticateSession(deps.db, timeoutsOf(deps), token).catch(() => null);
      if (found) {
        assertCsrf(request, found.csrfToken);
        // A session opened with an API key has no account to join: the invitation then makes one, as without a session.
        if (found.principal.accountId !== undefined) signedIn = { accountId: found.principal.accountId };
      }
    }
    const accepted = await acceptInvitation({ db: deps.db, timeouts: timeoutsOf(deps) }, body, signedIn, { ...clientOf(request), requestId: request.id });
    return answerSignedIn(deps, reply, accepted);
  },
});

export const peopleRoutes = [
  signIn, signInWithKeyRoute, updateAccountRoute, getSession, switchSession, signOut, listSessions, deleteSession,
  listMembersRoute, getMemberRoute, updateMemberRoute, removeMemberRoute,
  createInvitationRoute, listInvitationsRoute, revokeInvitationRoute, acceptInvitationRoute,
];
