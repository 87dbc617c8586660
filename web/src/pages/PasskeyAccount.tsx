import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client.js';
import { PasskeyManager, PasskeySignInButton, sessionCall } from '../components/Passkeys.js';
import { ErrorNotice, Button } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';

interface SessionView {
  id: string;
  account: { email: string; name: string | null };
  organization_id: string;
  role: string;
  method: string;
  memberships: { organization_id: string; organization_name: string }[];
}

const METHODS: Record<string, string> = { password: 'a password', passkey: 'a passkey', sso: 'single sign-on', invitation: 'an invitation link' };

/**
 * The signed-in person's passkeys page (/dashboard/passkeys), on the dashboard session's cookie rather than the API key
 * the rest of the dashboard signs in with today: who is signed in and how, their passkeys, signing out; signed out,
 * signing in with a passkey.
 */
export function PasskeyAccount() {
  useDocumentTitle('Your passkeys');
  const [session, setSession] = useState<SessionView | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      setSession(await sessionCall<SessionView>('GET', '/v1/session'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setSession(null);
      else setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);

  async function signOut() {
    try {
      await sessionCall('DELETE', '/v1/session');
      setSession(null);
    } catch (err) {
      setError(err);
    }
  }

  const org = session?.memberships.find((m) => m.organization_id === session.organization_id);
  return (
    <main className="signin" id="main">
      <div className="signin-card">
        <div className="brand brand-large">
          <img src="/dashboard/favicon.svg" alt="" width="32" height="32" />
          mmgen
        </div>
        <h1 tabIndex={-1} id="page-title">
          Your passkeys
        </h1>
        {session === undefined && !error ? <p className="muted">Loading…</p> : null}
        {session === null ? (
          <>
            <p className="muted" id="signed-out">You are not signed in.</p>
            <PasskeySignInButton onSignedIn={() => void load()} />
          </>
        ) : null}
        {session ? (
          <>
            <p id="signed-in-as">
              Signed in as <strong>{session.account.email}</strong> ({session.role}
              {org ? ` of ${org.organization_name}` : ''}) with {METHODS[session.method] ?? session.method}.
            </p>
            <PasskeyManager />
            <Button id="sign-out-session" onClick={() => void signOut()}>
              Sign out
            </Button>
          </>
        ) : null}
        {error ? <ErrorNotice error={error} /> : null}
        <p className="muted small">
          <a href="/dashboard/">Back to the dashboard</a>
        </p>
      </div>
    </main>
  );
}
