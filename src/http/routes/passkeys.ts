import { Type } from '@sinclair/typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Mode } from '../../domain/access.js';
import {
  finishPasskeyRegistration,
  listOwnPasskeys,
  removeOwnPasskey,
  signInWithPasskey,
  startPasskeyRegistration,
  startPasskeySignIn,
  type PasskeySignInPorts,
} from '../../domain/people/passkeys.js';
import { finishSecondFactor, startSecondFactor } from '../../domain/people/second-factor.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { pendingCookie, readPendingToken, sessionCookieNames } from '../session-cookie.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Deleted, IdParams, ListOf, Nullable, Timestamp } from '../schemas.js';
import { answerSignedIn, SignedIn } from './people.js';

/** base64url, as WebAuthn's JSON encodings (and @simplewebauthn/browser) send binary fields. */
const B64 = (maxLength: number, description?: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, ...(description ? { description } : {}) });

const Attachment = Type.Optional(Type.String({ enum: ['platform', 'cross-platform'] }));
const Extensions = Type.Object({}, { additionalProperties: true, description: 'getClientExtensionResults(), as the browser returned it.' });

const RegistrationCredential = Type.Object(
  {
    id: B64(1024),
    rawId: B64(1024),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        attestationObject: B64(65_536),
        authenticatorData: Type.Optional(B64(65_536)),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64(8192)),
      },
      { additionalProperties: false },
    ),
    clientExtensionResults: Extensions,
    authenticatorAttachment: Attachment,
  },
  { additionalProperties: false, title: 'PasskeyRegistrationCredential', description: 'The answer of navigator.credentials.create() in its JSON form (PublicKeyCredential.toJSON(), or @simplewebauthn/browser startRegistration).' },
);

const AuthenticationCredential = Type.Object(
  {
    id: B64(1024),
    rawId: B64(1024),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        authenticatorData: B64(65_536),
        signature: B64(8192),
        userHandle: Type.Optional(B64(1024)),
      },
      { additionalProperties: false },
    ),
    clientExtensionResults: Extensions,
    authenticatorAttachment: Attachment,
  },
  { additionalProperties: false, title: 'PasskeyAssertion', description: 'The answer of navigator.credentials.get() in its JSON form (PublicKeyCredential.toJSON(), or @simplewebauthn/browser startAuthentication).' },
);

// The options are WebAuthn's own JSON (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON), passed to the
// browser as they are: documented by their main fields, served whole.
const CreationOptions = Type.Object(
  {
    challenge: Type.String({ description: 'base64url; usable once, for five minutes.' }),
    rp: Type.Object({ id: Type.Optional(Type.String()), name: Type.String() }, { additionalProperties: true }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }, { additionalProperties: true }),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() }, { additionalProperties: true })),
  },
  { additionalProperties: true, title: 'PasskeyCreationOptions', description: 'PublicKeyCredentialCreationOptionsJSON: pass to @simplewebauthn/browser startRegistration (or PublicKeyCredential.parseCreationOptionsFromJSON).' },
);

const RequestOptions = Type.Object(
  {
    challenge: Type.String({ description: 'base64url; usable once, for five minutes.' }),
    rpId: Type.Optional(Type.String()),
  },
  { additionalProperties: true, title: 'PasskeyRequestOptions', description: 'PublicKeyCredentialRequestOptionsJSON: pass to @simplewebauthn/browser startAuthentication (or PublicKeyCredential.parseRequestOptionsFromJSON).' },
);

const Passkey = Type.Object(
  {
    id: Type.String({ description: 'pky_…' }),
    object: Type.Literal('passkey'),
    name: Type.String(),
    device_type: Type.String({ enum: ['singleDevice', 'multiDevice'], description: 'multiDevice: a synced passkey (it may be backed up to the person\'s other devices).' }),
    backed_up: Type.Boolean(),
    transports: Type.Array(Type.String()),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  { title: 'Passkey' },
);

const portsOf = (deps: AppDeps): PasskeySignInPorts => ({
  db: deps.db,
  clock: deps.clock,
  publicUrl: deps.config.publicUrl,
  signIn: deps.rateLimiter.signIn,
  slowAfter: deps.config.accounts.slowAfter,
  timeouts: { idleS: deps.config.accounts.sessionIdleS, maxS: deps.config.accounts.sessionMaxS },
});

export const passkeyRegistrationOptions = defineRoute({
  method: 'POST',
  path: '/v1/passkeys/options',
  operationId: 'createPasskeyRegistrationOptions',
  summary: 'Begin adding a passkey: the options for the browser',
  description:
    "For the signed-in person (the dashboard session). Answers WebAuthn creation options for this installation (its RP ID is the host of MMGEN_PUBLIC_URL) with a challenge that works once, for five minutes; hand them to navigator.credentials.create() and send its answer to POST /v1/passkeys. The person's passkeys are excluded, so an authenticator is registered once.",
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: { response: { 200: CreationOptions } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await startPasskeyRegistration(portsOf(deps), principal) }),
});

export const addPasskey = defineRoute({
  method: 'POST',
  path: '/v1/passkeys',
  operationId: 'addPasskey',
  summary: 'Add a passkey: verify the browser\'s answer and keep it',
  description:
    "Verifies the authenticator's answer to the options of POST /v1/passkeys/options (attestation `none`; the challenge, this installation's origin and RP ID, user verification) through @simplewebauthn/server, and keeps the passkey for the person. A wrong, used or expired challenge, another origin or a bad attestation is 400 `parameter_invalid` (param `credential`) saying which.",
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: {
    body: Type.Object(
      { credential: RegistrationCredential, name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'What the person calls it; default "Passkey N".' })) },
      { additionalProperties: false },
    ),
    response: { 201: Passkey },
  },
  handler: async ({ principal, body, deps, request }) => ({
    status: 201,
    body: await finishPasskeyRegistration(
      portsOf(deps), principal, { credential: body.credential as RegistrationResponseJSON, name: body.name }, requestOrigin(principal, request),
    ),
  }),
});

export const listPasskeysRoute = defineRoute({
  method: 'GET',
  path: '/v1/passkeys',
  operationId: 'listPasskeys',
  summary: "The signed-in person's passkeys",
  description: 'Every passkey of the person (they sign in to any of the person\'s organizations): names, kinds and last use; never keys.',
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: { response: { 200: ListOf(Passkey) } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await listOwnPasskeys(deps.db, principal) }),
});

export const removePasskeyRoute = defineRoute({
  method: 'DELETE',
  path: '/v1/passkeys/{id}',
  operationId: 'removePasskey',
  summary: 'Remove one of your passkeys',
  description:
    "It signs no one in from then on. Another person's passkey is 404, as one that never existed. The last passkey of a person who asks for a passkey after their password is refused (409 `passkey_required`): turn that off first (PATCH /v1/account).",
  tag: 'People',
  auth: { role: 'viewer', sessionOnly: true },
  schema: { params: IdParams, response: { 200: Deleted('passkey') } },
  errors: [409],
  handler: async ({ principal, params, deps, request }) => ({
    status: 200,
    body: await removeOwnPasskey(deps.db, principal, params.id, requestOrigin(principal, request)),
  }),
});

export const passkeySignInOptions = defineRoute({
  method: 'POST',
  path: '/v1/session/passkey/options',
  operationId: 'createPasskeySignInOptions',
  summary: 'Begin signing in with a passkey: the options for the browser',
  description:
    'Answers WebAuthn request options with a challenge that works once, for five minutes, and no list of credentials: the browser offers the passkeys it holds for this site. Hand them to navigator.credentials.get() and send its answer to POST /v1/session/passkey. 429 while the address is locked for failed sign-ins.',
  tag: 'People',
  auth: null,
  schema: { response: { 200: RequestOptions } },
  errors: [429],
  handler: async ({ deps, request }) => ({ status: 200, body: await startPasskeySignIn(portsOf(deps), { ip: request.ip }) }),
});

export const passkeySignIn = defineRoute({
  method: 'POST',
  path: '/v1/session/passkey',
  operationId: 'signInWithPasskey',
  summary: 'Sign in with a passkey',
  description:
    "Verifies the assertion (challenge, origin, RP ID, user verification, signature, and a signature counter past the last one seen) against the passkey it names and starts the same session as a password sign-in: the HttpOnly session cookie, the CSRF cookie and token. Every refusal is 401 `invalid_credentials` with the reason; failures count toward the same slowing and lock (429) as passwords, per the person's email and per address. Signs in to `organization_id` when given, else to the oldest membership.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object(
      {
        credential: AuthenticationCredential,
        organization_id: Type.Optional(Type.String({ maxLength: 100 })),
        mode: Type.Optional(Type.String({ enum: ['live', 'test'] })),
      },
      { additionalProperties: false },
    ),
    response: { 201: SignedIn },
  },
  errors: [401, 404, 429],
  handler: async ({ body, deps, request, reply }) => {
    const started = await signInWithPasskey(
      portsOf(deps),
      { credential: body.credential as AuthenticationResponseJSON, organization_id: body.organization_id, mode: body.mode as Mode | undefined },
      { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
    );
    return answerSignedIn(deps, reply, started);
  },
});

export const secondFactorOptions = defineRoute({
  method: 'POST',
  path: '/v1/session/second-factor/options',
  operationId: 'createSecondFactorOptions',
  summary: 'After a password that asks for a passkey: the options for the browser',
  description:
    "Needs the pending sign-in cookie set by POST /v1/session's 401 `second_factor_required` (HttpOnly, five minutes; this call does not use it up). Answers WebAuthn request options listing the person's passkeys, with a challenge that works once; hand them to navigator.credentials.get() and send its answer to POST /v1/session/second-factor. No, an unknown or an expired pending sign-in is 401 `invalid_credentials`; 429 while the person's email or the address is locked.",
  tag: 'People',
  auth: null,
  schema: { response: { 200: RequestOptions } },
  errors: [401, 429],
  handler: async ({ deps, request }) => ({
    status: 200,
    body: await startSecondFactor(portsOf(deps), readPendingToken(request, sessionCookieNames(deps.config.publicUrl)), { ip: request.ip }),
  }),
});

export const secondFactorSignIn = defineRoute({
  method: 'POST',
  path: '/v1/session/second-factor',
  operationId: 'finishSecondFactor',
  summary: 'After a password that asks for a passkey: finish signing in with one',
  description:
    "With the pending sign-in cookie of POST /v1/session, verifies the assertion as a passkey sign-in does (challenge, origin, RP ID, user verification, signature, counter) and that the passkey is the same person's, then starts the session (`method: password_passkey`): the session and CSRF cookies and token. The pending sign-in is used up by this call whatever its outcome (it is single-use): every refusal (no, an unknown, used or expired pending sign-in, another person's passkey, a bad assertion) is 401 `invalid_credentials` with the reason, and the password must be given again. Failures count toward the same slowing and lock (429) as failed passwords, per the person's email and per address.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object({ credential: AuthenticationCredential }, { additionalProperties: false }),
    response: { 201: SignedIn },
  },
  errors: [401, 403, 404, 429],
  handler: async ({ body, deps, request, reply }) => {
    const names = sessionCookieNames(deps.config.publicUrl);
    const token = readPendingToken(request, names);
    try {
      const started = await finishSecondFactor(
        portsOf(deps), token, { credential: body.credential as AuthenticationResponseJSON },
        { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
      );
      const answer = await answerSignedIn(deps, reply, started);
      void reply.header('set-cookie', pendingCookie(names, '', 0));
      return answer;
    } catch (err) {
      // The pending sign-in is gone either way: the browser forgets its cookie too.
      if (err instanceof ApiError && token !== undefined) err.withHeader('Set-Cookie', pendingCookie(names, '', 0));
      throw err;
    }
  },
});

export const passkeyRoutes = [
  passkeyRegistrationOptions, addPasskey, listPasskeysRoute, removePasskeyRoute, passkeySignInOptions, passkeySignIn, secondFactorOptions, secondFactorSignIn,
];
