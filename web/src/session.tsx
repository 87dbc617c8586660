import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Api, ApiError } from './api/client.js';
import { ApiSpec, permission, type OpenApiDoc, type Permission } from './api/spec.js';
import type { ApiKey, List, Model, Organization } from './api/types.js';

/** The key lives in this tab's session storage only: never a cookie (no CSRF), never a URL (no leaks in logs). */
const STORAGE_KEY = 'mmgen.apiKey';
const KEY_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{20,200}$/;

export interface Session {
  api: Api;
  key: ApiKey;
  org: Organization;
  spec: ApiSpec;
  /** Whether the key may call an operation (by operationId of /v1/openapi.json), and why not. */
  can: (operationId: string) => Permission;
  refreshOrg: () => Promise<void>;
  signOut: (message?: string) => void;
  /** The catalog, including delisted models (loaded once per session). */
  catalog: () => Promise<Model[]>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}

async function openSession(key: string, onRejected: (err: ApiError) => void) {
  const api = new Api(key, onRejected);
  const [me, org, doc] = await Promise.all([
    api.get<ApiKey>('/v1/api-keys/current'),
    api.get<Organization>('/v1/organization'),
    fetch('/v1/openapi.json', { credentials: 'omit' }).then((r) => {
      if (!r.ok) throw new ApiError(r.status, 'http_error', 'Could not read /v1/openapi.json.');
      return r.json() as Promise<OpenApiDoc>;
    }),
  ]);
  return { api, me, org, spec: new ApiSpec(doc) };
}

type State =
  | { phase: 'restoring' }
  | { phase: 'signed-out'; message?: string }
  | { phase: 'signed-in'; api: Api; me: ApiKey; org: Organization; spec: ApiSpec };

export function SessionProvider({ signIn, children }: { signIn: (props: { onSubmit: (key: string) => Promise<void>; message?: string }) => ReactNode; children: ReactNode }) {
  const [state, setState] = useState<State>(() => (sessionStorage.getItem(STORAGE_KEY) ? { phase: 'restoring' } : { phase: 'signed-out' }));
  const catalogPromise = useRef<Promise<Model[]> | null>(null);

  const signOut = useCallback((message?: string) => {
    sessionStorage.removeItem(STORAGE_KEY);
    catalogPromise.current = null;
    setState({ phase: 'signed-out', ...(message ? { message } : {}) });
  }, []);

  const rejected = useCallback(
    (err: ApiError) => {
      if (err.code === 'invalid_api_key') signOut('This API key is no longer valid (revoked?). Sign in with another key.');
    },
    [signOut],
  );

  const start = useCallback(
    async (key: string) => {
      const trimmed = key.trim();
      if (!KEY_SHAPE.test(trimmed)) throw new ApiError(0, 'invalid_api_key', 'An API key looks like sk_live_… or sk_test_… followed by letters and digits.');
      const s = await openSession(trimmed, rejected);
      sessionStorage.setItem(STORAGE_KEY, trimmed);
      catalogPromise.current = null;
      setState({ phase: 'signed-in', ...s });
    },
    [rejected],
  );

  useEffect(() => {
    if (state.phase !== 'restoring') return;
    const key = sessionStorage.getItem(STORAGE_KEY)!;
    start(key).catch((err: Error) => signOut(err instanceof ApiError && err.status === 401 ? 'Your API key is no longer valid. Sign in again.' : err.message));
  }, [state.phase, start, signOut]);

  const session = useMemo<Session | null>(() => {
    if (state.phase !== 'signed-in') return null;
    const { api, me, org, spec } = state;
    return {
      api,
      key: me,
      org,
      spec,
      can: (operationId) => permission(spec.op(operationId), me, org.paused),
      refreshOrg: async () => {
        const fresh = await api.get<Organization>('/v1/organization');
        setState((s) => (s.phase === 'signed-in' ? { ...s, org: fresh } : s));
      },
      signOut,
      catalog: () => {
        catalogPromise.current ??= api.get<List<Model>>('/v1/models?include_delisted=true').then((l) => l.data);
        catalogPromise.current.catch(() => (catalogPromise.current = null));
        return catalogPromise.current;
      },
    };
  }, [state, signOut]);

  if (state.phase === 'restoring') {
    return (
      <div className="center-screen" role="status">
        Signing in…
      </div>
    );
  }
  if (state.phase === 'signed-out' || !session) {
    return <>{signIn({ onSubmit: start, ...(state.phase === 'signed-out' && state.message ? { message: state.message } : {}) })}</>;
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
