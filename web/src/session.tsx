import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Api, ApiError } from './api/client.js';
import { finishSecondFactor, signInWithPasskey } from './api/passkeys.js';
import { readCsrfCookie, signInWithPassword, startSso, type SessionView, type SignedIn } from './api/people.js';
import { ApiSpec, permission, type Caller, type OpenApiDoc, type Permission } from './api/spec.js';
import type { ApiKey, List, Mode, Model, Organization } from './api/types.js';

/** A pasted key lives in this tab's session storage only: never a cookie, never a URL (no leaks in logs). */
const STORAGE_KEY = 'mmgen.apiKey';
const KEY_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{20,200}$/;

export interface Session {
  api: Api;
  /** Who the dashboard acts as: the pasted key, or the signed-in person's membership (role from the member). */
  key: Caller;
  /** The signed-in person (null when signed in with a pasted key). */
  person: SessionView | null;
  org: Organization;
  spec: ApiSpec;
  /** Whether the caller may call an operation (by operationId of /v1/openapi.json), and why not. */
  can: (operationId: string) => Permission;
  refreshOrg: () => Promise<void>;
  /** Ends the session: a person's on the server too (DELETE /v1/session), a key's in this tab. */
  signOut: (message?: string) => void;
  /** A signed-in person moves to another of their organizations or the other mode (PATCH /v1/session). */
  switchTo: (to: { organization_id?: string; mode?: Mode }) => Promise<void>;
  /** The catalog, including delisted models (loaded once per session). */
  catalog: () => Promise<Model[]>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}

/** What the sign-in page can ask for. */
export interface SignInProps {
  onKey: (key: string) => Promise<void>;
  /** 'second_factor': the password was right and the account asks for a passkey next (onSecondFactor). */
  onPassword: (email: string, password: string) => Promise<void | 'second_factor'>;
  /** Finishes a password sign-in with one of the person's passkeys. */
  onSecondFactor: () => Promise<void>;
  /** The browser's passkey ceremony (WebAuthn); it starts the same session a password does. */
  onPasskey: () => Promise<void>;
  /** Sends the browser to the organization's identity provider (it comes back signed in). */
  onSso: (organizationId: string) => Promise<void>;
  message?: string;
}

interface Opened {
  api: Api;
  caller: Caller;
  person: SessionView | null;
  org: Organization;
  spec: ApiSpec;
}

async function readSpec(): Promise<ApiSpec> {
  const r = await fetch('/v1/openapi.json', { credentials: 'omit' });
  if (!r.ok) throw new ApiError(r.status, 'http_error', 'Could not read /v1/openapi.json.');
  return new ApiSpec((await r.json()) as OpenApiDoc);
}

async function openKeySession(key: string, onRejected: (err: ApiError) => void): Promise<Opened> {
  const api = new Api({ kind: 'key', key }, onRejected);
  const [me, org, spec] = await Promise.all([api.get<ApiKey>('/v1/api-keys/current'), api.get<Organization>('/v1/organization'), readSpec()]);
  // A key acts with the lesser of its own role and its member's (effective_role).
  const caller: Caller = { kind: 'key', id: me.id, name: me.name, mode: me.mode, role: me.effective_role, scopes: me.scopes };
  return { api, caller, person: null, org, spec };
}

/** The person's session, from the cookie the browser holds: the role is the member's, in the session's mode. */
async function openPersonSession(csrfToken: string, onRejected: (err: ApiError) => void): Promise<Opened> {
  const probe = new Api({ kind: 'session', csrfToken, mode: 'live' }, onRejected);
  const [person, spec] = await Promise.all([probe.get<SessionView>('/v1/session'), readSpec()]);
  const api = new Api({ kind: 'session', csrfToken, mode: person.mode }, onRejected);
  const org = await api.get<Organization>('/v1/organization');
  const caller: Caller = { kind: 'session', id: person.id, name: person.account.email, mode: person.mode, role: person.role, scopes: [] };
  return { api, caller, person, org, spec };
}

type State = { phase: 'restoring' } | { phase: 'signed-out'; message?: string } | ({ phase: 'signed-in' } & Opened);

function initialState(): State {
  return sessionStorage.getItem(STORAGE_KEY) || readCsrfCookie() ? { phase: 'restoring' } : { phase: 'signed-out' };
}

/** The 401 codes that mean the credential in hand is gone (a revoked key, an ended or expired session, a removed member). */
const ENDED = new Set(['invalid_api_key', 'invalid_credentials', 'session_expired', 'invalid_authorization']);

export function SessionProvider({ signIn, children }: { signIn: (props: SignInProps) => ReactNode; children: ReactNode }) {
  const [state, setState] = useState<State>(initialState);
  const catalogPromise = useRef<Promise<Model[]> | null>(null);

  const endLocally = useCallback((message?: string) => {
    sessionStorage.removeItem(STORAGE_KEY);
    catalogPromise.current = null;
    setState({ phase: 'signed-out', ...(message ? { message } : {}) });
  }, []);

  const rejected = useCallback(
    (err: ApiError) => {
      if (!ENDED.has(err.code)) return;
      endLocally(
        err.code === 'invalid_api_key' ? 'This API key is no longer valid (revoked?). Sign in with another key.' : 'Your session has ended. Sign in again.',
      );
    },
    [endLocally],
  );

  const enter = useCallback((opened: Opened) => {
    catalogPromise.current = null;
    setState({ phase: 'signed-in', ...opened });
  }, []);

  const startWithKey = useCallback(
    async (key: string) => {
      const trimmed = key.trim();
      if (!KEY_SHAPE.test(trimmed)) throw new ApiError(0, 'invalid_api_key', 'An API key looks like sk_live_… or sk_test_… followed by letters and digits.');
      const opened = await openKeySession(trimmed, rejected);
      sessionStorage.setItem(STORAGE_KEY, trimmed);
      enter(opened);
    },
    [rejected, enter],
  );

  /** A person signed in (password or passkey): their session replaces a pasted key, and the tab keeps no key. */
  const enterPerson = useCallback(
    async (signed: SignedIn) => {
      sessionStorage.removeItem(STORAGE_KEY);
      enter(await openPersonSession(signed.csrf_token, rejected));
    },
    [rejected, enter],
  );

  const startWithPassword = useCallback(
    async (email: string, password: string): Promise<void | 'second_factor'> => {
      let signed: SignedIn;
      try {
        signed = await signInWithPassword(email.trim(), password);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'second_factor_required') return 'second_factor';
        throw err;
      }
      await enterPerson(signed);
    },
    [enterPerson],
  );

  const startSecondFactor = useCallback(async () => enterPerson(await finishSecondFactor()), [enterPerson]);

  const startWithPasskey = useCallback(async () => enterPerson(await signInWithPasskey()), [enterPerson]);

  const startWithSso = useCallback(async (organizationId: string) => {
    window.location.assign(await startSso(organizationId.trim()));
  }, []);

  useEffect(() => {
    if (state.phase !== 'restoring') return;
    const key = sessionStorage.getItem(STORAGE_KEY);
    const csrf = readCsrfCookie();
    const restored = key ? startWithKey(key) : csrf ? openPersonSession(csrf, rejected).then(enter) : Promise.resolve(endLocally());
    restored.catch((err: Error) => {
      if (err instanceof ApiError && err.status === 401) endLocally(key ? 'Your API key is no longer valid. Sign in again.' : 'Your session has ended. Sign in again.');
      else endLocally(err.message);
    });
  }, [state.phase, startWithKey, enter, endLocally, rejected]);

  const signOut = useCallback(
    (message?: string) => {
      if (state.phase === 'signed-in' && state.api.credential.kind === 'session') {
        // Ends the server's session (and clears its cookies); the tab signs out whatever the answer.
        state.api.del('/v1/session').catch(() => undefined).finally(() => endLocally(message));
        return;
      }
      endLocally(message);
    },
    [state, endLocally],
  );

  const session = useMemo<Session | null>(() => {
    if (state.phase !== 'signed-in') return null;
    const { api, caller, person, org, spec } = state;
    return {
      api,
      key: caller,
      person,
      org,
      spec,
      can: (operationId) => permission(spec.op(operationId), caller, org.paused),
      refreshOrg: async () => {
        const fresh = await api.get<Organization>('/v1/organization');
        setState((s) => (s.phase === 'signed-in' ? { ...s, org: fresh } : s));
      },
      signOut,
      switchTo: async (to) => {
        if (api.credential.kind !== 'session') throw new ApiError(0, 'session_required', 'Only a signed-in person can switch.');
        await api.patch<SessionView>('/v1/session', to);
        enter(await openPersonSession(api.credential.csrfToken, rejected));
      },
      catalog: () => {
        catalogPromise.current ??= api.get<List<Model>>('/v1/models?include_delisted=true').then((l) => l.data);
        catalogPromise.current.catch(() => (catalogPromise.current = null));
        return catalogPromise.current;
      },
    };
  }, [state, signOut, enter, rejected]);

  if (state.phase === 'restoring') {
    return (
      <div className="center-screen" role="status">
        Signing in…
      </div>
    );
  }
  if (state.phase === 'signed-out' || !session) {
    const message = state.phase === 'signed-out' ? state.message : undefined;
    return <>{signIn({ onKey: startWithKey, onPassword: startWithPassword, onSecondFactor: startSecondFactor, onPasskey: startWithPasskey, onSso: startWithSso, ...(message ? { message } : {}) })}</>;
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

