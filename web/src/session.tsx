import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Api, ApiError, type SessionGuard } from './api/client.js';
import { finishSecondFactor, signInWithPasskey } from './api/passkeys.js';
import { publicApi, readCsrfCookie, signInWithKey, signInWithPassword, startSso, type SessionView, type SignedIn } from './api/people.js';
import { permission, readApiSpec, type ApiSpec, type Caller, type Permission } from './api/spec.js';
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
  /** Why the tab changed session without being asked to here (another tab signed in or switched), until dismissed. */
  notice: string | null;
  dismissNotice: () => void;
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

/**
 * The dashboard's session, from the cookie the browser holds (a reload comes here too) or the answer that just set
 * it: a person's (the role is the member's, in the session's mode) or one opened with an API key (the key's id, name,
 * mode, effective role and scopes, from GET /v1/session: the tab never needs the key again).
 */
async function openSession(csrfToken: string, onRejected: (err: ApiError) => void, onReplaced: () => void, known?: SessionView): Promise<Opened> {
  // Each session has its own CSRF token, and a switch issues a new one: the readable cookie still holding this one
  // means the browser's session is this tab's, acting where the tab believes it does.
  const guard: SessionGuard = { current: () => readCsrfCookie() === csrfToken, replaced: onReplaced };
  const probe = new Api({ kind: 'session', csrfToken, mode: known?.mode ?? 'live' }, onRejected, guard);
  const [view, spec] = await Promise.all([known ?? probe.get<SessionView>('/v1/session'), readApiSpec()]);
  const api = new Api({ kind: 'session', csrfToken, mode: view.mode }, onRejected, guard);
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

type State = { phase: 'restoring'; notice?: string } | { phase: 'signed-out'; message?: string } | ({ phase: 'signed-in'; notice?: string } & Opened);

/**
 * What tabs of one browser tell each other (BroadcastChannel), since they share one session cookie: which session a
 * tab entered (its CSRF token, organization and mode), or that it signed out.
 */
type TabMessage = { kind: 'entered'; csrf: string; organization_id: string; mode: Mode } | { kind: 'signed-out'; message: string };
const TAB_CHANNEL = 'mmgen-session';
const REPLACED = 'This browser signed in, or switched organization or mode, in another tab: this tab now shows that session.';
const SIGNED_OUT_ELSEWHERE = 'This browser signed out in another tab. Sign in again.';
// The cookie is gone and no tab said why: a sign-out somewhere (a page outside the dashboard, a script) or the
// session's end (its cookies live no longer than it does) look the same from here.
const SESSION_GONE = 'This browser is no longer signed in (signed out in another tab, or the session ran out). Sign in again.';

/**
 * Tells every tab of the browser that it signed out, from a page outside the session (the invitation page signs out
 * to accept with a new account), as the session's own sign-out does.
 */
export function announceSignedOut(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(TAB_CHANNEL);
  channel.postMessage({ kind: 'signed-out', message: SIGNED_OUT_ELSEWHERE } satisfies TabMessage);
  channel.close();
}

function initialState(): State {
  return readCsrfCookie() ? { phase: 'restoring' } : { phase: 'signed-out' };
}

/** The 401 codes that mean the credential in hand is gone (a revoked key, an ended or expired session, a removed member). */
const ENDED = new Set(['invalid_api_key', 'invalid_credentials', 'session_expired', 'invalid_authorization']);

export function SessionProvider({ signIn, children }: { signIn: (props: SignInProps) => ReactNode; children: ReactNode }) {
  const [state, setState] = useState<State>(initialState);
  const catalogPromise = useRef<Promise<Model[]> | null>(null);
  // One channel object for listening and telling: a BroadcastChannel does not hear what it posts itself, so a tab is
  // never moved by its own message.
  const tabChannel = useRef<BroadcastChannel | null>(null);
  const tellOtherTabs = useCallback((message: TabMessage) => tabChannel.current?.postMessage(message), []);

  const endLocally = useCallback((message?: string) => {
    catalogPromise.current = null;
    setState({ phase: 'signed-out', ...(message ? { message } : {}) });
  }, []);

  const switching = useRef(false);

  /** The browser's session is no longer this tab's: open the one its cookie now names, or show the tab signed out. */
  const catchUp = useCallback((signedOutMessage: string = SESSION_GONE) => {
    // This tab's own switch replaced the token; it enters the session switched to when the switch is answered.
    if (switching.current) return;
    catalogPromise.current = null;
    setState((s) => {
      if (s.phase === 'restoring') return s;
      return readCsrfCookie() ? { phase: 'restoring', notice: REPLACED } : { phase: 'signed-out', message: signedOutMessage };
    });
  }, []);

  const rejected = useCallback(
    (err: ApiError) => {
      if (!ENDED.has(err.code)) return;
      // The server's session is over already; this clears its cookies, so a reload does not try it again.
      const message =
        err.code === 'invalid_api_key' ? 'This API key is no longer valid (revoked?). Sign in with another key.' : 'Your session has ended. Sign in again.';
      publicApi().del('/v1/session').catch(() => undefined).finally(() => tellOtherTabs({ kind: 'signed-out', message }));
      endLocally(message);
    },
    [endLocally, tellOtherTabs],
  );

  const enter = useCallback((opened: Opened, notice?: string) => {
    catalogPromise.current = null;
    setState({ phase: 'signed-in', ...opened, ...(notice ? { notice } : {}) });
    if (opened.api.credential.kind === 'session') {
      tellOtherTabs({ kind: 'entered', csrf: opened.api.credential.csrfToken, organization_id: opened.org.id, mode: opened.api.mode });
    }
  }, [tellOtherTabs]);

  const stateNow = useRef(state);
  stateNow.current = state;
  useEffect(() => {
    if (typeof BroadcastChannel === 'undefined') return undefined;
    const channel = new BroadcastChannel(TAB_CHANNEL);
    tabChannel.current = channel;
    channel.onmessage = (e: MessageEvent<TabMessage>) => {
      const s = stateNow.current;
      const m = e.data;
      if (s.phase === 'signed-in') {
        const own = s.api.credential.kind === 'session' ? s.api.credential.csrfToken : null;
        // A tab that entered the session this one shows (a reload, or this tab's own catching up) changes nothing.
        if (m.kind === 'entered' && m.csrf === own && m.organization_id === s.org.id && m.mode === s.api.mode) return;
        catchUp(m.kind === 'signed-out' ? m.message : undefined);
      } else if (s.phase === 'signed-out' && m.kind === 'entered') {
        setState({ phase: 'restoring' });
      }
    };
    return () => {
      tabChannel.current = null;
      channel.close();
    };
  }, [catchUp]);

  /** A signed-in session (a person's, or a pasted key's): the answer that set the cookie already describes it. */
  const enterSigned = useCallback(
    async (signed: SignedIn) => {
      const { csrf_token: csrf, ...view } = signed;
      enter(await openSession(csrf, rejected, catchUp, view));
    },
    [rejected, enter, catchUp],
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

  const restoringWith = state.phase === 'restoring' ? (state.notice ?? '') : null;
  useEffect(() => {
    if (restoringWith === null) return;
    const notice = restoringWith || undefined;
    // The cookie read here can be replaced by another tab before the session is open (the guard then refuses): read it again.
    const restore = (attempts: number): Promise<void> => {
      const csrf = readCsrfCookie();
      if (!csrf) return Promise.resolve(endLocally());
      return openSession(csrf, rejected, catchUp).then(
        (o) => enter(o, notice),
        (err: unknown) => {
          if (err instanceof ApiError && err.code === 'session_replaced' && attempts > 1) return restore(attempts - 1);
          throw err;
        },
      );
    };
    restore(3).catch((err: Error) => {
      if (err instanceof ApiError && err.status === 401) endLocally('Your session has ended. Sign in again.');
      else endLocally(err.message);
    });
  }, [restoringWith, enter, endLocally, rejected, catchUp]);

  const signOut = useCallback(
    (message?: string) => {
      if (state.phase === 'signed-in' && state.api.credential.kind === 'session') {
        // Ends the server's session (and clears its cookies); the tab signs out whatever the answer. The browser's
        // session, with the cookie's token: in a tab another tab has moved on, signing out still signs the browser out.
        publicApi()
          .del('/v1/session')
          .catch(() => undefined)
          .finally(() => {
            endLocally(message);
            tellOtherTabs({ kind: 'signed-out', message: SIGNED_OUT_ELSEWHERE });
          });
        return;
      }
      endLocally(message);
    },
    [state, endLocally, tellOtherTabs],
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
        // A switch gives the session a new CSRF token: until this tab has entered it, the cookie no longer names this
        // tab's token, and that is this tab's own doing, not another tab's.
        switching.current = true;
        try {
          const { csrf_token: csrf, ...view } = await api.patch<SignedIn>('/v1/session', to);
          // The other tabs' guards would see the new token on their next request; told now, they follow at once.
          tellOtherTabs({ kind: 'entered', csrf, organization_id: view.organization_id, mode: view.mode });
          enter(await openSession(csrf, rejected, catchUp, view));
        } finally {
          switching.current = false;
        }
      },
      catalog: () => {
        catalogPromise.current ??= api.get<List<Model>>('/v1/models?include_delisted=true').then((l) => l.data);
        catalogPromise.current.catch(() => (catalogPromise.current = null));
        return catalogPromise.current;
      },
      notice: state.notice ?? null,
      dismissNotice: () => setState((s) => (s.phase === 'signed-in' ? { ...s, notice: undefined } : s)),
    };
  }, [state, signOut, enter, rejected, catchUp, tellOtherTabs]);

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

