import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Api, ApiError } from './api/client.js';
import { finishSecondFactor, signInWithPasskey } from './api/passkeys.js';
import { publicApi, readCsrfCookie, signInWithKey, signInWithPassword, startSso, type SessionView, type SignedIn } from './api/people.js';
import { ApiSpec, permission, type Caller, type OpenApiDoc, type Permission } from './api/spec.js';
import type { List, Mode, Model, Organization } from './api/types.js';

/**
 * The dashboard never stores an API key (docs/contract-addenda.md): a pasted key is exchanged, once, for a session
 * that acts as the key (POST /v1/session/key), and the tab then holds what a person's sign-in leaves, the HttpOnly
 * session cookie (no script reads it) and the CSRF token. The key lives only in the sign-in form and that one request.
 */
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
  /** Ends the session on the server (DELETE /v1/session, which clears the cookies), a person's or a pasted key's. */
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

/**
 * The dashboard's session, from the cookie the browser holds (a reload comes here too) or the answer that just set
 * it: a person's (the role is the member's, in the session's mode) or one opened with an API key (the key's id, name,
 * mode, effective role and scopes, from GET /v1/session: the tab never needs the key again).
 */
async function openSession(csrfToken: string, onRejected: (err: ApiError) => void, known?: SessionView): Promise<Opened> {
  const probe = new Api({ kind: 'session', csrfToken, mode: known?.mode ?? 'live' }, onRejected);
  const [view, spec] = await Promise.all([known ?? probe.get<SessionView>('/v1/session'), readSpec()]);
  const api = new Api({ kind: 'session', csrfToken, mode: view.mode }, onRejected);
  const org = await api.get<Organization>('/v1/organization');
  if (view.api_key) {
    const k = view.api_key;
    // A key acts with the lesser of its own role and its member's (effective_role).
    const caller: Caller = { kind: 'key', viaSession: true, id: k.id, name: k.name, mode: k.mode, role: k.effective_role, scopes: k.scopes };
    return { api, caller, person: null, org, spec };
  }
  const caller: Caller = { kind: 'session', id: view.id, name: view.account?.email ?? view.member_id, mode: view.mode, role: view.role, scopes: [] };
  return { api, caller, person: view, org, spec };
}

type State = { phase: 'restoring' } | { phase: 'signed-out'; message?: string } | ({ phase: 'signed-in' } & Opened);

function initialState(): State {
  return readCsrfCookie() ? { phase: 'restoring' } : { phase: 'signed-out' };
}

/** The 401 codes that mean the credential in hand is gone (a revoked key, an ended or expired session, a removed member). */
const ENDED = new Set(['invalid_api_key', 'invalid_credentials', 'session_expired', 'invalid_authorization']);

export function SessionProvider({ signIn, children }: { signIn: (props: SignInProps) => ReactNode; children: ReactNode }) {
  const [state, setState] = useState<State>(initialState);
  const catalogPromise = useRef<Promise<Model[]> | null>(null);

  const endLocally = useCallback((message?: string) => {
    catalogPromise.current = null;
    setState({ phase: 'signed-out', ...(message ? { message } : {}) });
  }, []);

  const rejected = useCallback(
    (err: ApiError) => {
      if (!ENDED.has(err.code)) return;
      // The server's session is over already; this clears its cookies, so a reload does not try it again.
      publicApi().del('/v1/session').catch(() => undefined);
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

  /** A signed-in session (a person's, or a pasted key's): the answer that set the cookie already describes it. */
  const enterSigned = useCallback(
    async (signed: SignedIn) => {
      const { csrf_token: csrf, ...view } = signed;
      enter(await openSession(csrf, rejected, view));
    },
    [rejected, enter],
  );

  const startWithKey = useCallback(
    async (key: string) => {
      const trimmed = key.trim();
      if (!KEY_SHAPE.test(trimmed)) throw new ApiError(0, 'invalid_api_key', 'An API key looks like sk_live_… or sk_test_… followed by letters and digits.');
      // The one request that carries the key; nothing keeps it afterwards.
      await enterSigned(await signInWithKey(trimmed));
    },
    [enterSigned],
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
      await enterSigned(signed);
    },
    [enterSigned],
  );

  const startSecondFactor = useCallback(async () => enterSigned(await finishSecondFactor()), [enterSigned]);

  const startWithPasskey = useCallback(async () => enterSigned(await signInWithPasskey()), [enterSigned]);

  const startWithSso = useCallback(async (organizationId: string) => {
    window.location.assign(await startSso(organizationId.trim()));
  }, []);

  useEffect(() => {
    if (state.phase !== 'restoring') return;
    const csrf = readCsrfCookie();
    const restored = csrf ? openSession(csrf, rejected).then(enter) : Promise.resolve(endLocally());
    restored.catch((err: Error) => {
      if (err instanceof ApiError && err.status === 401) endLocally('Your session has ended. Sign in again.');
      else endLocally(err.message);
    });
  }, [state.phase, enter, endLocally, rejected]);

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
        if (api.credential.kind !== 'session' || !person) throw new ApiError(0, 'session_required', 'Only a signed-in person can switch.');
        await api.patch<SessionView>('/v1/session', to);
        enter(await openSession(api.credential.csrfToken, rejected));
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

