import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * The dashboard session's cookies (docs/contract-addenda.md, "People"): the session token, HttpOnly, and the CSRF
 * token, readable by the dashboard's script so it can send it back in X-CSRF-Token. Both SameSite=Lax (Strict would
 * drop the cookie on the redirect back from an identity provider), Path=/. When the public URL is https they are
 * Secure and named with the __Host- prefix (the browser then refuses them from http, from a subdomain, or with a
 * Domain); over plain http (a loopback development or test server) a browser would drop a Secure cookie, so they
 * are neither.
 */
export interface SessionCookieNames {
  session: string;
  csrf: string;
  secure: boolean;
}

export function sessionCookieNames(publicUrl: string): SessionCookieNames {
  const secure = publicUrl.startsWith('https:');
  return secure
    ? { session: '__Host-mmgen_session', csrf: '__Host-mmgen_csrf', secure }
    : { session: 'mmgen_session', csrf: 'mmgen_csrf', secure };
}

export const CSRF_HEADER = 'x-csrf-token';

export function readSessionToken(request: FastifyRequest, names: SessionCookieNames): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const token = parseCookie(header)[names.session];
  return token && /^[0-9A-Za-z]{20,200}$/.test(token) ? token : undefined;
}

export function setSessionCookies(reply: FastifyReply, names: SessionCookieNames, s: { token: string; csrfToken: string; maxAgeS: number }): void {
  void reply.header('set-cookie', [sessionCookie(names, 'session', s.token, s.maxAgeS), sessionCookie(names, 'csrf', s.csrfToken, s.maxAgeS)]);
}

/** A new CSRF token for the session the browser holds (a switch), living as long as the session has left. */
export function setCsrfCookie(reply: FastifyReply, names: SessionCookieNames, csrfToken: string, maxAgeS: number): void {
  void reply.header('set-cookie', [sessionCookie(names, 'csrf', csrfToken, maxAgeS)]);
}

export function clearSessionCookies(reply: FastifyReply, names: SessionCookieNames): void {
  void reply.header('set-cookie', [sessionCookie(names, 'session', '', 0), sessionCookie(names, 'csrf', '', 0)]);
}

// One of the two cookies, with the attributes both share; only the CSRF token is readable by the dashboard's script.
function sessionCookie(names: SessionCookieNames, which: 'session' | 'csrf', value: string, maxAgeS: number): string {
  return stringifySetCookie(names[which], value, { path: '/', sameSite: 'lax', secure: names.secure, maxAge: maxAgeS, httpOnly: which === 'session' });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A state-changing request of a session must carry the session's CSRF token in X-CSRF-Token. */
export function assertCsrf(request: FastifyRequest, csrfToken: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers[CSRF_HEADER];
  const ok = typeof sent === 'string' && sent.length === csrfToken.length && timingSafeEqual(Buffer.from(sent), Buffer.from(csrfToken));
  if (!ok) {
    throw new ApiError('csrf_token_invalid', 'A signed-in request that changes something must send the session\'s CSRF token in the X-CSRF-Token header.');
  }
}

/**
 * The pending sign-in of a password that asks for a passkey after it (domain/people/second-factor.ts): HttpOnly,
 * SameSite=Strict (nothing cross-site ever needs it) and sent only to /v1/session/second-factor…, for the few
 * minutes it lives. On https it is Secure with the __Secure- prefix (__Host- would need Path=/).
 */
export const SECOND_FACTOR_PATH = '/v1/session/second-factor';

export function pendingCookieName(names: SessionCookieNames): string {
  return names.secure ? '__Secure-mmgen_second_factor' : 'mmgen_second_factor';
}

export function pendingCookie(names: SessionCookieNames, token: string, maxAgeS: number): string {
  return stringifySetCookie(pendingCookieName(names), token, { path: SECOND_FACTOR_PATH, sameSite: 'strict', secure: names.secure, httpOnly: true, maxAge: maxAgeS });
}

export function readPendingToken(request: FastifyRequest, names: SessionCookieNames): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const token = parseCookie(header)[pendingCookieName(names)];
  return token && /^[0-9A-Za-z]{20,200}$/.test(token) ? token : undefined;
}
