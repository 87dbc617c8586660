import { Type } from '@sinclair/typebox';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../domain/people/passwords.js';
import { requestSignUp, verifySignUp, type SignUpPorts } from '../../domain/people/sign-up.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { defineRoute } from '../route.js';
import { Timestamp } from '../schemas.js';
import { answerSignedIn, SignedIn } from './people.js';

/** Sign-up is the operator's choice (MMGEN_SIGNUP); closed, its routes say so plainly (403 `sign_up_closed`). */
function openPorts(deps: AppDeps): SignUpPorts {
  // Config validation refuses MMGEN_SIGNUP=on without SMTP, so an open sign-up always has a mailer.
  if (!deps.config.signUp.enabled || !deps.mailer) {
    throw new ApiError('sign_up_closed', 'This installation does not take sign-ups: ask an organization\'s owner or admin for an invitation.');
  }
  return {
    db: deps.db,
    clock: deps.clock,
    mailer: deps.mailer,
    publicUrl: deps.config.publicUrl,
    signIn: deps.rateLimiter.signIn,
    slowAfter: deps.config.accounts.slowAfter,
    timeouts: { idleS: deps.config.accounts.sessionIdleS, maxS: deps.config.accounts.sessionMaxS },
    plan: deps.config.signUp.plan,
    ttlS: deps.config.signUp.ttlS,
  };
}

export const getSignUpSettings = defineRoute({
  method: 'GET',
  path: '/v1/sign-up',
  operationId: 'getSignUpSettings',
  summary: 'Whether this installation takes sign-ups',
  description: 'Public (the sign-in page reads it to offer "Create an account"). `open` is the operator\'s MMGEN_SIGNUP.',
  tag: 'People',
  auth: null,
  schema: {
    response: {
      200: Type.Object(
        { object: Type.Literal('sign_up_settings'), open: Type.Boolean({ description: 'POST /v1/sign-up is accepted.' }) },
        { title: 'SignUpSettings' },
      ),
    },
  },
  handler: async ({ deps }) => ({ status: 200, body: { object: 'sign_up_settings' as const, open: deps.config.signUp.enabled && deps.mailer !== null } }),
});

export const createSignUp = defineRoute({
  method: 'POST',
  path: '/v1/sign-up',
  operationId: 'signUp',
  summary: 'Sign up: ask for an account by email',
  description:
    'Mails a link that confirms the email (valid MMGEN_SIGNUP_TTL_HOURS, 24, once); following it (POST /v1/sign-up/verify) creates the account with this password and a new organization the person owns. The answer is the same 202 whether or not the email already has an account (its owner is mailed a notice instead). Counted per email and per address like failed sign-ins: slowed, then 429. 403 `sign_up_closed` when the operator has not opened sign-up.',
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object(
      {
        email: Type.String({ minLength: 3, maxLength: 320 }),
        password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      },
      { additionalProperties: false },
    ),
    response: {
      202: Type.Object(
        {
          object: Type.Literal('sign_up'),
          email: Type.String(),
          status: Type.Literal('verification_sent'),
          expires_at: Timestamp,
        },
        { title: 'SignUpAccepted' },
      ),
    },
  },
  errors: [403, 429, 503],
  handler: async ({ body, deps, request }) => ({
    status: 202,
    body: await requestSignUp(openPorts(deps), body, { ip: request.ip, requestId: request.id }, request.log),
  }),
});

export const verifySignUpRoute = defineRoute({
  method: 'POST',
  path: '/v1/sign-up/verify',
  operationId: 'verifySignUp',
  summary: 'Confirm a sign-up with the mailed token, and sign in',
  description:
    "The token of the mailed link (`…/dashboard/sign-up#token=…`). Creates the account, a new organization the person owns (the operator's MMGEN_SIGNUP_PLAN, an empty wallet), and a session, as a sign-in does (`method: sign_up`). 410 `sign_up_invalid` for an unknown, used or expired token; 409 `email_taken` if the email got an account in between.",
  tag: 'People',
  auth: null,
  schema: {
    body: Type.Object({ token: Type.String({ minLength: 20, maxLength: 200 }) }, { additionalProperties: false }),
    response: { 201: SignedIn },
  },
  errors: [403, 409, 410],
  handler: async ({ body, deps, request, reply }) => {
    const started = await verifySignUp(openPorts(deps), body.token, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id });
    return answerSignedIn(deps, reply, started);
  },
});

export const signUpRoutes = [getSignUpSettings, createSignUp, verifySignUpRoute];
